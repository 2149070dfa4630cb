/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- throwaway test values, not secrets */
/**
 * An n8n user folder: the package under test installed as a community node, a pre-migrated
 * SQLite DB, and the environment every n8n child process gets.
 */
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { N8nRuntime } from '../n8n-runtime/install';
import { childEnv } from '../child-env';
import { runCommand } from '../commands';
import { freePort } from '../free-port';
import { PACKAGE_NAME } from '../project';
import type { StartOptions } from './instance';

/** Fixed so credentials encrypted by one start (or by the CLI) decrypt in another. */
export const ENCRYPTION_KEY = 'n8n-nodes-svc-e2e-encryption-key';

/** Where n8n keeps the package in a user folder, whichever way it got there. */
export function packageFolder(userFolder: string): string {
	return join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME);
}

/** Puts the package from `options` (a tarball or a folder) into the user folder; nothing when neither is given. */
export async function installPackage(options: StartOptions, userFolder: string): Promise<void> {
	if (!options.packageTarball && !options.packageDir) return;
	const target = packageFolder(userFolder);
	await mkdir(target, { recursive: true });
	if (options.packageTarball) {
		// npm pack puts everything under package/.
		const result = await runCommand('tar', [
			'-xzf',
			options.packageTarball,
			'-C',
			target,
			'--strip-components=1',
		]);
		if (result.code !== 0)
			throw new Error(`Extracting ${options.packageTarball} failed: ${result.stderr.trim()}`);
	} else if (options.packageDir) {
		const source = options.packageDir;
		const manifest = JSON.parse(await readFile(join(source, 'package.json'), 'utf8')) as {
			files?: string[];
		};
		// Like npm pack: package.json plus its `files`, so a project folder's node_modules never comes along.
		const entries = manifest.files ? ['package.json', ...manifest.files] : undefined;
		if (entries) {
			for (const entry of entries) {
				if (existsSync(join(source, entry)))
					await cp(join(source, entry), join(target, entry), { recursive: true });
			}
		} else {
			await cp(source, target, {
				recursive: true,
				filter: (path) => !/[\\/](node_modules|\.git)([\\/]|$)/.test(path.slice(source.length)),
			});
		}
	}
}

/**
 * Environment for an n8n child: the caller's, minus what belongs to the caller. Under jest,
 * NODE_ENV=test makes `n8n start` exit 1 without a word; npm_config_* would reconfigure n8n's own
 * npm calls; NODE_OPTIONS may carry the test runner's loaders; N8N_*, DB_*, QUEUE_*, WEBHOOK_URL and the like would
 * reconfigure the instance.
 */
export function n8nProcessEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
	return childEnv(
		extra,
		/^(npm_|N8N_|DB_|JEST_|NODE_ENV$|NODE_OPTIONS$|WEBHOOK_URL$|QUEUE_|EXECUTIONS_|OFFLOAD_)/i,
	);
}

const DB_FILES = ['database.sqlite', 'database.sqlite-wal', 'database.sqlite-shm'];

/**
 * A SQLite DB on which n8n's migrations (about 250) already ran, made once per runtime with a CLI
 * command; a fresh user folder starting from a copy is ready about 2 s sooner.
 */
async function migratedDbTemplate(runtime: N8nRuntime): Promise<string> {
	const dir = join(runtime.dir, '.e2e-db-template');
	if (existsSync(join(dir, DB_FILES[0]))) return dir;
	const work = await mkdtemp(join(runtime.dir, '.e2e-db-template-tmp-'));
	try {
		const result = await runCommand(runtime.nodeBin, [runtime.n8nBin, 'list:workflow'], {
			cwd: work,
			env: n8nProcessEnv({
				...runtime.env,
				N8N_USER_FOLDER: work,
				N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
				N8N_DIAGNOSTICS_ENABLED: 'false',
				N8N_RUNNERS_BROKER_PORT: String(await freePort()),
			}),
			timeoutMs: 120_000,
		});
		if (result.code !== 0)
			throw new Error(
				`Migrating a template DB (n8n list:workflow) failed with exit ${result.code}: ${(result.stdout + result.stderr).slice(-2000)}`,
			);
		// Only the DB: the config file and logs belong to each user folder.
		const staged = join(work, 'template');
		await mkdir(staged);
		for (const file of DB_FILES) {
			if (existsSync(join(work, '.n8n', file)))
				await rename(join(work, '.n8n', file), join(staged, file));
		}
		await rename(staged, dir).catch((error: unknown) => {
			// Another process made it first: theirs is as good.
			if (!existsSync(join(dir, DB_FILES[0]))) throw error;
		});
	} finally {
		await rm(work, { recursive: true, force: true });
	}
	return dir;
}
/** Gives a user folder without a DB a copy of the runtime's migrated one. */
export async function seedMigratedDb(runtime: N8nRuntime, userFolder: string): Promise<void> {
	const dbDir = join(userFolder, '.n8n');
	if (existsSync(join(dbDir, DB_FILES[0]))) return;
	const template = await migratedDbTemplate(runtime);
	await mkdir(dbDir, { recursive: true });
	for (const file of DB_FILES)
		if (existsSync(join(template, file))) await copyFile(join(template, file), join(dbDir, file));
}
