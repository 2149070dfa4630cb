/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- tooling that runs in Node.js beside n8n, never inside it */
/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- throwaway test values, not secrets */
/**
 * Starts a real n8n server (from harness/n8n-runtime) for the tests and tools: on 127.0.0.1 with a
 * throwaway user folder, the package under test installed as a community node, HTTPS from a
 * local CA, an owner, a session and a public API key.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { localCaIn } from '../local-ca';
import type { CommandResult } from '../commands';
import { runCommand } from '../commands';
import { freePort } from '../free-port';
import { logSince, logSize, logTail } from '../log-tail';
import { spawnGroup, untilGroupReady } from '../process-groups';
import { recordTiming } from '../timings';
import type { N8nInstance, N8nRole, N8nRoleProcess, StartOptions } from './instance';
import { startRoleProcess } from './role-process';
import type { N8nSession } from './session';
import { sessionRequests } from './session';
import { ENCRYPTION_KEY, installPackage, n8nProcessEnv, seedMigratedDb } from './user-folder';

export const DEFAULT_OWNER_EMAIL = 'owner@example.test';
export const DEFAULT_OWNER_PASSWORD = 'E2e-owner-Passw0rd';
const OWNER_NAME = { firstName: 'E2E', lastName: 'Owner' };
/** What n8n (both majors) prints once it has started, workflows activated. */
const N8N_STARTED_LINE = 'Editor is now accessible via';

/** Public API key scopes the helpers below need; intersected with what the owner role may grant. */
const API_KEY_SCOPES = [
	'workflow:create',
	'workflow:read',
	'workflow:list',
	'workflow:update',
	'workflow:delete',
	'workflow:activate',
	'workflow:deactivate',
	'execution:read',
	'execution:list',
	'credential:create',
	'credential:read',
	'credential:list',
	'credential:update',
	'credential:delete',
];

interface BcryptJs {
	hashSync(password: string, rounds: number): string;
}

/** Starts n8n and returns once it is ready, logged in and holding a public API key. */
export async function startN8n(options: StartOptions): Promise<N8nInstance> {
	const startedAt = Date.now();
	const { runtime } = options;
	const protocol = options.protocol ?? 'https';
	const port = options.port ?? (await freePort());
	const removeFolder = options.removeUserFolderOnStop ?? options.userFolder === undefined;
	const userFolder = options.userFolder ?? (await mkdtemp(join(tmpdir(), 'n8n-e2e-')));
	const logFile = join(userFolder, 'n8n.log');
	const ownerEmail = options.ownerEmail ?? DEFAULT_OWNER_EMAIL;
	const ownerPassword = options.ownerPassword ?? DEFAULT_OWNER_PASSWORD;
	const readyTimeoutMs = options.readyTimeoutMs ?? 90_000;

	if (options.packageTarball || options.packageDir) await installPackage(options, userFolder);
	if (options.migratedDb !== false) await seedMigratedDb(runtime, userFolder);
	const tls =
		protocol === 'https' ? (options.tls ?? (await localCaIn(join(userFolder, 'tls')))) : undefined;
	const baseUrl = `${protocol}://localhost:${port}`;

	// Cost 4 keeps hashing and n8n's login check fast; the regex n8n applies accepts any cost.
	const bcrypt = createRequire(join(runtime.dir, 'node_modules', 'n8n', 'package.json'))(
		'bcryptjs',
	) as BcryptJs;
	const baseEnv: Record<string, string> = {
		...runtime.env,
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		N8N_HOST: 'localhost',
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		// With host, port and protocol set, n8n derives https://localhost:<port>/webhook/... itself.
		N8N_PROTOCOL: protocol,
		N8N_DISABLE_UI: options.ui ? 'false' : 'true',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		// n8n's list of verified community nodes, fetched from n8n's servers when the node panel asks
		// (a development build asks the staging one): offline, an error and a stack in the log each time.
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_PUBLIC_API_SWAGGERUI_DISABLED: 'true',
		// Activation then runs inline, so a failing trigger create() is an HTTP 400, not only a log line.
		N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'false',
		N8N_SECURE_COOKIE: protocol === 'https' ? 'true' : 'false',
		// 2.x creates the owner from these at start; 1.x ignores them (owner set up over REST below).
		N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
		N8N_INSTANCE_OWNER_EMAIL: ownerEmail,
		N8N_INSTANCE_OWNER_FIRST_NAME: OWNER_NAME.firstName,
		N8N_INSTANCE_OWNER_LAST_NAME: OWNER_NAME.lastName,
		N8N_INSTANCE_OWNER_PASSWORD_HASH: bcrypt.hashSync(ownerPassword, 4),
		N8N_LOG_LEVEL: options.logLevel ?? 'info',
		N8N_LOG_OUTPUT: 'console',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
		// The runtime's node first, so anything n8n spawns by name (task runner) gets the same Node.
		PATH: `${join(runtime.nodeBin, '..')}${delimiter}${process.env.PATH ?? ''}`,
		...(tls
			? {
					N8N_SSL_KEY: tls.keyPath,
					N8N_SSL_CERT: tls.certPath,
					NODE_EXTRA_CA_CERTS: tls.caCertPath,
				}
			: {}),
	};
	const serverEnv = {
		...baseEnv,
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		...options.env,
	};

	// A restart appends to the same log: only what this start writes tells that it is up.
	const logStart = await logSize(logFile);
	// Own process group, so stop() reaches the task runner too.
	const group = spawnGroup(runtime.nodeBin, [runtime.n8nBin, 'start'], {
		cwd: userFolder,
		env: n8nProcessEnv(serverEnv),
		logFile,
	});
	const { pid } = group;

	const session: N8nSession = {
		baseUrl,
		caPem: tls?.caPem ?? '',
		browserId: randomUUID(),
		cookie: '',
		apiKey: '',
	};
	/** Set once n8n answers: before, a request that gets no answer is expected (it is starting). */
	let answering = false;
	// Once n8n answers, a request that gets none says whether n8n still runs, with its log.
	const { rest, api, fetch, close } = sessionRequests(session, async (error, method, url) => {
		if (!answering) return undefined;
		const exited = group.exited();
		const state = exited
			? `has ended (code ${exited.code}, signal ${exited.signal})`
			: 'still runs';
		return new Error(
			`${method} ${url} got no answer (${error.message}); n8n (pid ${pid}) ${state}\n--- last lines of ${logFile} ---\n${await logTail(logFile)}`,
			{ cause: error },
		);
	});

	const stop = async (stopOptions: { keepUserFolder?: boolean } = {}): Promise<void> => {
		close();
		await group.stop();
		if (removeFolder && !stopOptions.keepUserFolder && !process.env.SVC_KEEP_N8N_FOLDER)
			await rm(userFolder, { recursive: true, force: true });
	};

	const cli = async (
		args: string[],
		cliOptions: { timeoutMs?: number } = {},
	): Promise<CommandResult> =>
		await runCommand(runtime.nodeBin, [runtime.n8nBin, ...args], {
			cwd: userFolder,
			env: n8nProcessEnv({
				...baseEnv,
				N8N_RUNNERS_BROKER_PORT: String(await freePort()),
				...options.env,
			}),
			timeoutMs: cliOptions.timeoutMs ?? 120_000,
		});

	try {
		// n8n serves webhooks before it has marked crashed the runs a killed process left running,
		// and 1.x then takes the runs it has just started for them too (their data is lost): n8n is
		// up once it says the editor is accessible, after that and after activating workflows.
		// n8n says it at log level info and above only: a quieter n8n (the bench's, at warn) is
		// fresh, with no killed process's runs to mark, and is up once it answers ready.
		const saysStarted = ['info', 'debug'].includes(options.logLevel ?? 'info');
		const ready = async (): Promise<boolean> =>
			(!saysStarted || (await logSince(logFile, logStart)).includes(N8N_STARTED_LINE)) &&
			(await fetch(`${baseUrl}/healthz/readiness`, { timeoutMs: 2_000 })).status === 200;
		await untilGroupReady('n8n', group, ready, { timeoutMs: readyTimeoutMs });
		answering = true;

		if (runtime.version === 'v1') {
			const setup = await rest('POST', '/owner/setup', {
				email: ownerEmail,
				password: ownerPassword,
				...OWNER_NAME,
			});
			// 400 on a restart: the owner exists already.
			if (setup.status !== 200 && setup.status !== 400)
				throw new Error(
					`POST /rest/owner/setup answered ${setup.status}: ${JSON.stringify(setup.body)}`,
				);
		}
		const login = await rest<unknown>('POST', '/login', {
			emailOrLdapLoginId: ownerEmail,
			password: ownerPassword,
		});
		if (login.status !== 200)
			throw new Error(`POST /rest/login answered ${login.status}: ${JSON.stringify(login.body)}`);
		const setCookie = login.headers['set-cookie'] ?? [];
		session.cookie = setCookie.map((line) => line.split(';')[0]).join('; ');
		if (!session.cookie.includes('n8n-auth='))
			throw new Error(`POST /rest/login set no n8n-auth cookie (${setCookie.join(' | ')})`);

		const allowed = await rest<{ data: string[] }>('GET', '/api-keys/scopes');
		if (allowed.status !== 200)
			throw new Error(
				`GET /rest/api-keys/scopes answered ${allowed.status}: ${JSON.stringify(allowed.body)}`,
			);
		const scopes = API_KEY_SCOPES.filter((scope) => allowed.body.data.includes(scope));
		// Labels are unique per user: a restart on the same user folder needs a new one.
		const created = await rest<{ data: { rawApiKey: string } }>('POST', '/api-keys', {
			label: `e2e ${randomUUID()}`,
			scopes,
			expiresAt: null,
		});
		if (created.status !== 200)
			throw new Error(
				`POST /rest/api-keys answered ${created.status}: ${JSON.stringify(created.body)}`,
			);
		session.apiKey = created.body.data.rawApiKey;

		for (const type of options.expectNodeTypes ?? []) {
			const described = await rest('POST', '/node-types', { nodeInfos: [{ name: type }] });
			if (described.status !== 200)
				throw new Error(
					`Node type ${type} is not loaded: ${JSON.stringify(described.body).slice(0, 300)}`,
				);
		}
	} catch (error) {
		await stop({ keepUserFolder: true });
		const message = error instanceof Error ? error.message : String(error);
		throw new Error(`${message}\n--- last lines of ${logFile} ---\n${await logTail(logFile)}`);
	}

	let processCount = 0;
	const startProcess = async (
		role: N8nRole,
		processOptions: { name?: string; port?: number; env?: Record<string, string> } = {},
	): Promise<N8nRoleProcess> =>
		await startRoleProcess(
			{ options, userFolder, protocol, env: baseEnv, readyTimeoutMs, fetch },
			role,
			{ ...processOptions, name: processOptions.name ?? `${role}-${++processCount}` },
		);

	await recordTiming({
		kind: 'n8n start',
		label: `n8n ${runtime.version} main`,
		ms: Date.now() - startedAt,
	});
	return {
		baseUrl,
		webhookBaseUrl: `${baseUrl}/webhook`,
		userFolder,
		logFile,
		apiKey: session.apiKey,
		caPem: session.caPem,
		tls,
		port,
		runtime,
		pid,
		session,
		rest,
		api,
		fetch,
		cli,
		startProcess,
		log: async () => await readFile(logFile, 'utf8'),
		stop,
		kill: async () => await group.kill(),
		exited: () => group.exited(),
		restart: async () => {
			await stop({ keepUserFolder: true });
			// The package is already in the user folder: no second copy.
			const start = async () =>
				await startN8n({
					...options,
					packageTarball: undefined,
					packageDir: undefined,
					userFolder,
					port,
					tls,
					removeUserFolderOnStop: removeFolder,
				});
			// As a process supervisor does, n8n is started once more when it exits while starting:
			// after a kill, n8n 2.41's start-up recovery can throw on a run it marks crashed (its
			// insights hook reads the run's start time, null for a run never started) and exit; it
			// then skips that recovery at the next start and marks those runs crashed plainly.
			// The timing report lists each such start.
			const firstTry = Date.now();
			return await start().catch(async (error: Error) => {
				if (!error.message.includes('exited during start-up')) throw error;
				await recordTiming({
					kind: 'n8n start',
					label: `n8n ${runtime.version} main that exited while starting again`,
					ms: Date.now() - firstTry,
				});
				return await start();
			});
		},
	};
}
