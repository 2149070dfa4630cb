/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * The package as an earlier commit built it, for the upgrade test: a published trigger installed
 * from that build must keep receiving once n8n's installer updates it to the build under test.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { NPM, runChecked, runCommand } from './commands';
import { repackWithVersion } from './npm-registry';
import { packTarball } from './pack';
import { PACKAGE_NAME, PROJECT_DIR, TMP_DIR } from './project';

/**
 * The build users may have installed, which the upgrade test updates from. Move it to the commit of
 * each release (RELEASING.md); until the first, it is the last commit before the installer tests.
 */
export const UPGRADE_BASELINE = {
	revision: '7f39d908407e5be96af614968ffdfbb7d6df4104',
	version: '0.1.0-baseline.0',
};

/**
 * Builds `revision` (its sources, with this project's node_modules), packs it under `version`,
 * and returns the tarball; cached per revision under .tmp/baseline.
 */
export async function packedAtRevision(
	revision = UPGRADE_BASELINE.revision,
	version = UPGRADE_BASELINE.version,
): Promise<string> {
	const dir = join(TMP_DIR, 'baseline', revision);
	const tarball = join(dir, `${PACKAGE_NAME}-${version}.tgz`);
	if (existsSync(tarball)) return tarball;
	await mkdir(join(TMP_DIR, 'baseline'), { recursive: true });
	const work = await mkdtemp(join(TMP_DIR, 'baseline', 'build-'));
	try {
		const archive = await runCommand(
			'git',
			['archive', '--format=tar', `--output=${join(work, 'source.tar')}`, revision],
			{ cwd: PROJECT_DIR },
		);
		if (archive.code !== 0)
			throw new Error(
				`The upgrade test builds the package as commit ${revision} left it, and git has no such commit here (${archive.stderr.trim()}): clone with full history, or run git fetch --unshallow`,
			);
		const source = join(work, 'source');
		await mkdir(source);
		await runChecked('tar (source)', 'tar', ['-xf', join(work, 'source.tar'), '-C', source]);
		await symlink(join(PROJECT_DIR, 'node_modules'), join(source, 'node_modules'), 'dir');
		await runChecked(`npm run build (${revision})`, NPM, ['run', 'build', '--silent'], {
			cwd: source,
		});
		const packed = await packTarball(join(work, 'pack'), source);
		const staged = join(work, 'out');
		await mkdir(staged);
		await repackWithVersion(packed, version, staged);
		await rename(staged, dir).catch((error: unknown) => {
			// Another process built it first: theirs is as good.
			if (!existsSync(tarball)) throw error;
		});
	} finally {
		await rm(work, { recursive: true, force: true });
	}
	return tarball;
}
