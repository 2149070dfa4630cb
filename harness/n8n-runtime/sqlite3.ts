/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { access, copyFile, mkdir, readFile, rename } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';

import { cacheRoot, lockInstall } from '../cached-install';
import { childEnv } from '../child-env';
import { NPM } from '../commands';
import type { Step } from './install-step';
import { run } from './install-step';

/** sqlite3 5.1.7 is released for Node-API 3 and 6; 6 loads on Node 20 and 24. */
const SQLITE3_NAPI_VERSION = 6;

/**
 * sqlite3 is n8n's default DB. Its addon uses Node-API, so one build serves every runtime: built
 * for Node-API 6 (the highest its release supports) it loads on Node 20 and Node 24 alike. The
 * first install compiles it from the runtime's local headers (no downloads) and keeps the addon
 * in the cache; another install, or one running beside it, takes that copy instead of compiling
 * again. The load check after this proves the copy loads on the runtime's Node.
 */
export async function provideSqlite3(
	tmp: string,
	step: Step,
	nodeBin: string,
	nodeDir: string,
	waitMs: number,
): Promise<void> {
	const packageDir = join(tmp, 'node_modules', 'sqlite3');
	const { version } = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as {
		version: string;
	};
	const addon = join('build', 'Release', 'node_sqlite3.node');
	const entry = join(cacheRoot(), `sqlite3-${version}-napi${SQLITE3_NAPI_VERSION}`);
	const built = join(entry, 'node_sqlite3.node');
	const done = async () =>
		await access(built).then(
			() => true,
			() => false,
		);
	// No lock held: another install finished the build meanwhile.
	const release = await lockInstall(entry, done, waitMs);
	try {
		if (!release) {
			await mkdir(dirname(join(packageDir, addon)), { recursive: true });
			await copyFile(built, join(packageDir, addon));
			step.progress(`  sqlite3 ${version}: the build in ${entry}\n`);
			return;
		}
		const buildEnv = childEnv({
			PATH: `${dirname(nodeBin)}${delimiter}${process.env.PATH ?? ''}`,
			npm_config_nodedir: nodeDir,
			npm_config_build_from_source: 'true',
			npm_config_napi_build_version: String(SQLITE3_NAPI_VERSION),
			JOBS: 'max',
		});
		await run(
			step,
			'npm rebuild sqlite3 (compiles, ~1.5 min)',
			NPM,
			['rebuild', 'sqlite3', '--loglevel=warn'],
			tmp,
			buildEnv,
		);
		const staged = `${entry}.tmp-${process.pid}`;
		await mkdir(staged, { recursive: true });
		await copyFile(join(packageDir, addon), join(staged, 'node_sqlite3.node'));
		await rename(staged, entry);
	} finally {
		await release?.();
	}
}
