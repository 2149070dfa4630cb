/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * PostgreSQL and Redis for n8n's queue mode, from Debian's packages: installed with apt-get when
 * missing, then run as private throwaway servers on free loopback ports (own data folder, no
 * system service touched), stopped and removed afterwards.
 */
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

import { installDebianPackages } from './debian-packages';
import { runCommand } from './commands';
import { freePort } from './free-port';
import type { ProcessGroup } from './process-groups';
import { spawnGroup, untilGroupReady } from './process-groups';

const POSTGRES_ROOT = '/usr/lib/postgresql';
const REDIS_SERVER = '/usr/bin/redis-server';

/** The newest installed PostgreSQL server's bin folder, if any. */
function postgresBin(): string | undefined {
	if (!existsSync(POSTGRES_ROOT)) return undefined;
	const versions = readdirSync(POSTGRES_ROOT)
		.filter((name) => existsSync(join(POSTGRES_ROOT, name, 'bin', 'postgres')))
		.sort((a, b) => Number(b) - Number(a));
	return versions[0] ? join(POSTGRES_ROOT, versions[0], 'bin') : undefined;
}

/** Installs Debian's postgresql and redis-server when their binaries are missing (needs root, as in CI). */
export async function ensureBackingPackages(): Promise<void> {
	const missing = [
		...(postgresBin() ? [] : ['postgresql']),
		...(existsSync(REDIS_SERVER) ? [] : ['redis-server']),
	];
	if (missing.length === 0) return;
	await installDebianPackages(missing, 'Queue mode');
}

export interface PostgresServer {
	host: string;
	port: number;
	database: string;
	user: string;
	password: string;
}

export interface RedisServer {
	host: string;
	port: number;
}

export interface BackingServices {
	postgres: PostgresServer;
	redis: RedisServer;
	/** DB_* and QUEUE_BULL_REDIS_* settings for every n8n process of the topology. */
	n8nEnv: Record<string, string>;
	/** Runs SQL in the database with psql; returns its output. */
	sql(statement: string): Promise<string>;
	/** The ids of the executions that have a job in n8n's Bull queue (waiting, active, delayed or failed). */
	queuedExecutionIds(): Promise<Set<string>>;
	stop(): Promise<void>;
}

/** PostgreSQL refuses to run as root: as root, its folders belong to Debian's `postgres` user and it runs as that user. */
async function asServerUser(dir: string): Promise<string[]> {
	if (userInfo().uid !== 0) return [];
	const ids = await runCommand('id', ['-u', 'postgres']);
	const gid = await runCommand('id', ['-g', 'postgres']);
	if (ids.code !== 0)
		throw new Error(
			"Running PostgreSQL as root needs the `postgres` user that Debian's postgresql package creates",
		);
	await chown(dir, Number(ids.stdout.trim()), Number(gid.stdout.trim()));
	return ['runuser', '-u', 'postgres', '--'];
}

async function startPostgres(
	root: string,
): Promise<{ server: PostgresServer; group: ProcessGroup }> {
	const bin = postgresBin();
	if (!bin) throw new Error('PostgreSQL is not installed (ensureBackingPackages installs it)');
	const dir = join(root, 'postgres');
	await mkdir(dir);
	const prefix = await asServerUser(dir);
	const exec = (tool: string, args: string[]): [string, string[]] => {
		const [cmd, ...rest] = [...prefix, join(bin, tool), ...args];
		return [cmd, rest];
	};
	const server: PostgresServer = {
		host: '127.0.0.1',
		port: await freePort(),
		database: 'n8n',
		user: 'n8n',
		password: 'n8n-queue-test',
	};
	const data = join(dir, 'data');
	const [initCmd, initArgs] = exec('initdb', [
		'-D',
		data,
		'-U',
		server.user,
		'--auth=trust',
		'-E',
		'UTF8',
		'--no-sync',
	]);
	const init = await runCommand(initCmd, initArgs, { timeoutMs: 120_000 });
	if (init.code !== 0) throw new Error(`initdb failed (${init.code}): ${init.stderr.slice(-1500)}`);
	// A throwaway test database: durability settings off, connections for 5 n8n processes and their pools.
	const [cmd, args] = exec('postgres', [
		'-D',
		data,
		'-p',
		String(server.port),
		'-k',
		dir,
		'-c',
		'listen_addresses=127.0.0.1',
		'-c',
		'fsync=off',
		'-c',
		'synchronous_commit=off',
		'-c',
		'full_page_writes=off',
		'-c',
		'max_connections=200',
	]);
	const group = spawnGroup(cmd, args, { env: process.env, logFile: join(root, 'postgres.log') });
	const [readyCmd, readyArgs] = exec('pg_isready', [
		'-h',
		server.host,
		'-p',
		String(server.port),
		'-U',
		server.user,
	]);
	await untilGroupReady(
		'PostgreSQL',
		group,
		async () => (await runCommand(readyCmd, readyArgs)).code === 0,
		{ timeoutMs: 30_000, everyMs: 100 },
	);
	const [createCmd, createArgs] = exec('createdb', [
		'-h',
		server.host,
		'-p',
		String(server.port),
		'-U',
		server.user,
		server.database,
	]);
	const created = await runCommand(createCmd, createArgs);
	if (created.code !== 0) throw new Error(`createdb failed: ${created.stderr}`);
	return { server, group };
}

async function startRedis(root: string): Promise<{ server: RedisServer; group: ProcessGroup }> {
	const server: RedisServer = { host: '127.0.0.1', port: await freePort() };
	const group = spawnGroup(
		REDIS_SERVER,
		[
			'--port',
			String(server.port),
			'--bind',
			server.host,
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			root,
		],
		{
			env: process.env,
			logFile: join(root, 'redis.log'),
		},
	);
	await untilGroupReady(
		'Redis',
		group,
		async () =>
			(
				await runCommand('redis-cli', ['-h', server.host, '-p', String(server.port), 'ping'])
			).stdout.trim() === 'PONG',
		{ timeoutMs: 30_000, everyMs: 100 },
	);
	return { server, group };
}

/** n8n's Bull queue in Redis: prefix `bull` (QUEUE_BULL_PREFIX's default), queue `jobs`; a job is a hash under it. */
const BULL_QUEUE_KEY = 'bull:jobs';
/** Every queued job's `data` field, which holds the execution id n8n queued. */
const QUEUED_JOB_DATA = `local found = {}
for _, key in ipairs(redis.call('KEYS', ARGV[1])) do
	if redis.call('TYPE', key).ok == 'hash' then
		local data = redis.call('HGET', key, 'data')
		if data then found[#found + 1] = data end
	end
end
return found`;

/** Installs (when missing) and starts PostgreSQL and Redis for one queue-mode topology. */
export async function startBackingServices(): Promise<BackingServices> {
	await ensureBackingPackages();
	const root = await mkdtemp(join(tmpdir(), 'svc-queue-services-'));
	// mkdtemp makes it 0700: PostgreSQL's own user must be able to reach its folder inside.
	await chmod(root, 0o755);
	const [postgres, redis] = await Promise.all([startPostgres(root), startRedis(root)]);
	return {
		postgres: postgres.server,
		redis: redis.server,
		n8nEnv: {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: postgres.server.host,
			DB_POSTGRESDB_PORT: String(postgres.server.port),
			DB_POSTGRESDB_DATABASE: postgres.server.database,
			DB_POSTGRESDB_USER: postgres.server.user,
			DB_POSTGRESDB_PASSWORD: postgres.server.password,
			QUEUE_BULL_REDIS_HOST: redis.server.host,
			QUEUE_BULL_REDIS_PORT: String(redis.server.port),
		},
		async sql(statement) {
			const { host, port, user, database } = postgres.server;
			const result = await runCommand('psql', [
				'-h',
				host,
				'-p',
				String(port),
				'-U',
				user,
				'-d',
				database,
				'-v',
				'ON_ERROR_STOP=1',
				'-At',
				'-c',
				statement,
			]);
			if (result.code !== 0) throw new Error(`psql failed: ${result.stderr.trim()}`);
			return result.stdout;
		},
		async queuedExecutionIds() {
			const { host, port } = redis.server;
			const result = await runCommand('redis-cli', [
				'-h',
				host,
				'-p',
				String(port),
				'EVAL',
				QUEUED_JOB_DATA,
				'0',
				`${BULL_QUEUE_KEY}:*`,
			]);
			if (result.code !== 0) throw new Error(`redis-cli failed: ${result.stderr.trim()}`);
			return new Set(
				[...result.stdout.matchAll(/"executionId":"?(\d+)/g)].map((match) => match[1]),
			);
		},
		async stop() {
			await Promise.all([postgres.group.stop(), redis.group.stop()]);
			await rm(root, { recursive: true, force: true });
		},
	};
}
