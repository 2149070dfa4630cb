/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** `npm pack` of a project, as users install it: the one tarball the tools and tests share. */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { NPM, runChecked } from './commands';
import { PROJECT_DIR, TMP_DIR } from './project';

/** Packs `projectDir` (default: this project) into an emptied `dest`; returns the tarball's path. */
export async function packTarball(dest: string, projectDir = PROJECT_DIR): Promise<string> {
	await rm(dest, { recursive: true, force: true });
	await mkdir(dest, { recursive: true });
	await runChecked('npm pack', NPM, ['pack', '--pack-destination', dest, '--loglevel=warn'], {
		cwd: projectDir,
	});
	const tarballs = (await readdir(dest)).filter((file) => file.endsWith('.tgz'));
	if (tarballs.length !== 1)
		throw new Error(`npm pack left ${tarballs.length} tarballs in ${dest}`);
	return join(dest, tarballs[0]);
}

/**
 * `npm pack` of the built package, as users install it. Built once per test file, in a folder of
 * its process's own: jest's workers pack side by side.
 */
let packed: Promise<string> | undefined;
export function packedTarball(): Promise<string> {
	packed ??= packTarball(join(TMP_DIR, 'pack', String(process.pid)));
	return packed;
}

/** The paths `npm pack` would put in the tarball of `projectDir`, sorted, without packing it. */
export async function packedFileList(projectDir = PROJECT_DIR): Promise<string[]> {
	const pack = await runChecked(
		'npm pack --dry-run',
		NPM,
		['pack', '--dry-run', '--json', '--loglevel=error'],
		{ cwd: projectDir },
	);
	const [manifest] = JSON.parse(pack.stdout) as Array<{ files: Array<{ path: string }> }>;
	return manifest.files.map((file) => file.path).sort();
}
