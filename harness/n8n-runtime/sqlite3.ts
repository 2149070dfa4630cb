/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { existsSync } from 'node:fs';
import { access, copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';

import { cacheRoot, lockInstall } from '../cached-install';
import { childEnv } from '../child-env';
import { NPM } from '../commands';
import type { Step } from './install-step';
import { run } from './install-step';

/** sqlite3 5.1.7 is released for Node-API 3 and 6; 6 loads on Node 20 and 24. */
const SQLITE3_NAPI_VERSION = 6;
const ADDON = join('build', 'Release', 'node_sqlite3.node');

/**
 * Debian's SQLite (libsqlite3-dev): where the machine has it, the addon links to it and compiles in
 * seconds; sqlite3's own copy of SQLite takes about 100 s of a core to compile. n8n needs nothing
 * of SQLite newer than Debian 12's 3.40 (the end-to-end suites run on it).
 */
const SYSTEM_SQLITE = '/usr';
const systemSqlite = (): boolean => existsSync(join(SYSTEM_SQLITE, 'include', 'sqlite3.h'));

/** The packages sqlite3's build reads, at the versions the runtime's lockfile pins. */
const BUILD_PACKAGES = ['sqlite3', 'node-addon-api', 'bindings'];

async function pinnedVersions(lockFile: string): Promise<Record<string, string>> {
	const { packages } = JSON.parse(await readFile(lockFile, 'utf8')) as {
		packages: Record<string, { version?: string }>;
	};
	return Object.fromEntries(
		BUILD_PACKAGES.map((name) => {
			const version = packages[`node_modules/${name}`]?.version;
			if (version === undefined) throw new Error(`${lockFile} pins no ${name}`);
			return [name, version];
		}),
	);
}

/**
 * sqlite3 is n8n's default DB. Its addon uses Node-API, so one build serves every runtime: built
 * for Node-API 6 (the highest its release supports) it loads on Node 20 and Node 24 alike. The
 * first install compiles it, from sqlite3's own package and local Node headers (`nodeDir`, no
 * downloads), against the machine's SQLite where it has one, in a folder of its own, so that it
 * can run beside npm's install of n8n. The addon stays in the cache; another install, or one
 * running beside it, takes that copy. Returns the cached addon's path.
 */
export async function buildSqlite3(
	lockFile: string,
	nodeDir: Promise<string>,
	step: Step,
	waitMs: number,
): Promise<string> {
	const versions = await pinnedVersions(lockFile);
	const linked = systemSqlite();
	const entry = join(
		cacheRoot(),
		`sqlite3-${versions.sqlite3}-napi${SQLITE3_NAPI_VERSION}-${linked ? 'system' : 'bundled'}-sqlite`,
	);
	const built = join(entry, 'node_sqlite3.node');
	const done = async () =>
		await access(built).then(
			() => true,
			() => false,
		);
	// No lock held: another install finished the build meanwhile.
	const release = await lockInstall(entry, done, waitMs);
	if (!release) return built;
	const folder = `${entry}.build-${process.pid}`;
	try {
		await rm(folder, { recursive: true, force: true });
		await mkdir(folder, { recursive: true });
		await writeFile(
			join(folder, 'package.json'),
			JSON.stringify({ private: true, dependencies: versions }),
		);
		const npmArgs = ['--no-audit', '--no-fund', '--no-package-lock', '--loglevel=warn'];
		await run(
			step,
			'npm install sqlite3 (no scripts)',
			NPM,
			['install', '--ignore-scripts', '--omit=optional', ...npmArgs],
			folder,
			childEnv({}),
		);
		const headers = await nodeDir;
		await run(
			step,
			linked
				? `npm rebuild sqlite3 (linked to ${SYSTEM_SQLITE}'s SQLite)`
				: 'npm rebuild sqlite3 (compiles SQLite, ~2 min)',
			NPM,
			['rebuild', 'sqlite3', '--loglevel=warn'],
			folder,
			childEnv({
				PATH: `${join(headers, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
				npm_config_nodedir: headers,
				npm_config_build_from_source: 'true',
				npm_config_napi_build_version: String(SQLITE3_NAPI_VERSION),
				...(linked ? { npm_config_sqlite: SYSTEM_SQLITE } : {}),
				JOBS: 'max',
			}),
		);
		const staged = `${entry}.tmp-${process.pid}`;
		await mkdir(staged, { recursive: true });
		await copyFile(
			join(folder, 'node_modules', 'sqlite3', ADDON),
			join(staged, 'node_sqlite3.node'),
		);
		await rename(staged, entry);
		step.progress(`  sqlite3 ${versions.sqlite3}: built into ${entry}\n`);
		return built;
	} finally {
		await rm(folder, { recursive: true, force: true });
		await release();
	}
}

/** Puts the cached addon where the runtime's sqlite3 package loads it from. */
export async function installSqlite3(runtimeDir: string, built: string): Promise<void> {
	const target = join(runtimeDir, 'node_modules', 'sqlite3', ADDON);
	await mkdir(dirname(target), { recursive: true });
	await copyFile(built, target);
}
