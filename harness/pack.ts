/** `npm pack` of a project, as users install it: the one tarball the tools and tests share. */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from './commands';
import { lastLines } from './log-tail';
import { PROJECT_DIR, TMP_DIR } from './project';

/** Packs `projectDir` (default: this project) into an emptied `dest`; returns the tarball's path. */
export async function packTarball(dest: string, projectDir = PROJECT_DIR): Promise<string> {
	await rm(dest, { recursive: true, force: true });
	await mkdir(dest, { recursive: true });
	const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
	const pack = await runCommand(npm, ['pack', '--pack-destination', dest, '--loglevel=warn'], {
		cwd: projectDir,
	});
	if (pack.code !== 0)
		throw new Error(`npm pack failed (exit ${pack.code}):\n${lastLines(pack.output, 30)}`);
	const tarballs = (await readdir(dest)).filter((file) => file.endsWith('.tgz'));
	if (tarballs.length !== 1)
		throw new Error(`npm pack left ${tarballs.length} tarballs in ${dest}`);
	return join(dest, tarballs[0]);
}

/** `npm pack` of the built package, as users install it. Built once per test process. */
let packed: Promise<string> | undefined;
export function packedTarball(): Promise<string> {
	packed ??= packTarball(join(TMP_DIR, 'pack'));
	return packed;
}
