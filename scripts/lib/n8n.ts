/**
 * Drives a real n8n server (from scripts/n8n-runtime) for e2e tests and the dev script:
 * start it on 127.0.0.1 with a throwaway user folder, the package under test installed as a
 * community node, HTTPS from a local CA, an owner, a session and a public API key; then import,
 * run and inspect workflows through its HTTP APIs.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest, Agent as HttpAgent, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type {
	ExecutionStatus,
	IConnections,
	IDataObject,
	INode,
	IPinData,
	IRunExecutionData,
	IWorkflowSettings,
} from 'n8n-workflow';
import type { N8nRuntime } from '../n8n-runtime/install';
import type { CommandResult, ProcessGroup } from './processes';
import { childEnv, freePort, logTail, runCommand, sleep, spawnGroup } from './processes';

export const PACKAGE_NAME = 'n8n-nodes-svc';
/** Fixed so credentials encrypted by one start (or by the CLI) decrypt in another. */
export const ENCRYPTION_KEY = 'n8n-nodes-svc-e2e-encryption-key';
export const DEFAULT_OWNER_EMAIL = 'owner@example.test';
export const DEFAULT_OWNER_PASSWORD = 'E2e-owner-Passw0rd';
const OWNER_NAME = { firstName: 'E2E', lastName: 'Owner' };

/** Public API key scopes the helpers below need; intersected with what the owner role may grant. */
const API_KEY_SCOPES = [
	'workflow:create', 'workflow:read', 'workflow:list', 'workflow:update', 'workflow:delete',
	'workflow:activate', 'workflow:deactivate',
	'execution:read', 'execution:list',
	'credential:create', 'credential:read', 'credential:list', 'credential:update', 'credential:delete',
];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpResult<T = unknown> {
	status: number;
	headers: IncomingHttpHeaders;
	/** Parsed JSON when the response is JSON, else the text. */
	body: T;
}

export interface HttpRequestOptions {
	method?: HttpMethod;
	headers?: Record<string, string>;
	/** Objects are sent as JSON; strings and Buffers as they are. */
	body?: unknown;
	/** Extra CA (PEM) to trust for https URLs. */
	ca?: string;
	agent?: HttpAgent | HttpsAgent;
	timeoutMs?: number;
}

/** Small HTTP(S) client on node:http(s), so a per-call CA can be trusted without extra packages. */
export async function request<T = unknown>(url: string, options: HttpRequestOptions = {}): Promise<HttpResult<T>> {
	const target = new URL(url);
	const headers: Record<string, string> = { ...options.headers };
	let payload: Buffer | undefined;
	if (options.body !== undefined) {
		if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) {
			payload = Buffer.from(options.body);
		} else {
			payload = Buffer.from(JSON.stringify(options.body));
			headers['content-type'] ??= 'application/json';
		}
		headers['content-length'] = String(payload.length);
	}
	const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
	return await new Promise<HttpResult<T>>((resolvePromise, reject) => {
		const req = send(target, {
			method: options.method ?? 'GET',
			headers,
			agent: options.agent,
			ca: options.ca,
			timeout: options.timeoutMs ?? 30_000,
		}, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (chunk: Buffer) => chunks.push(chunk));
			res.on('error', reject);
			res.on('end', () => {
				const text = Buffer.concat(chunks).toString('utf8');
				let body: unknown = text;
				if ((res.headers['content-type'] ?? '').includes('json') && text !== '') {
					try {
						body = JSON.parse(text);
					} catch {
						// Keep the text: callers print it in errors.
					}
				}
				resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, body: body as T });
			});
		});
		req.on('timeout', () => req.destroy(new Error(`${options.method ?? 'GET'} ${url} timed out`)));
		req.on('error', reject);
		req.end(payload);
	});
}

// ---------------------------------------------------------------------------------------------
// TLS

export interface LocalCa {
	caCertPath: string;
	caKeyPath: string;
	/** Server certificate for DNS:localhost and IP:127.0.0.1, signed by the CA. */
	certPath: string;
	keyPath: string;
	caPem: string;
}

async function openssl(args: string[], cwd: string): Promise<void> {
	const result = await runCommand('openssl', args, { cwd });
	if (result.code !== 0) throw new Error(`openssl ${args[0]} failed: ${result.stderr.trim()}`);
}

/** Creates a throwaway CA and a localhost server certificate in `dir` (EC keys: generated in milliseconds). */
export async function makeLocalCa(dir: string): Promise<LocalCa> {
	await mkdir(dir, { recursive: true });
	const files = { caCertPath: join(dir, 'ca.crt'), caKeyPath: join(dir, 'ca.key'), certPath: join(dir, 'server.crt'), keyPath: join(dir, 'server.key') };
	const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
	await openssl(['req', '-x509', ...ec, '-keyout', files.caKeyPath, '-out', files.caCertPath, '-days', '3650',
		'-subj', '/CN=n8n-nodes-svc local test CA',
		'-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir);
	const csr = join(dir, 'server.csr');
	await openssl(['req', ...ec, '-keyout', files.keyPath, '-out', csr, '-subj', '/CN=localhost'], dir);
	const ext = join(dir, 'server.ext');
	await writeFile(ext, [
		'subjectAltName=DNS:localhost,IP:127.0.0.1',
		'basicConstraints=CA:FALSE',
		'keyUsage=critical,digitalSignature,keyEncipherment',
		'extendedKeyUsage=serverAuth',
		'',
	].join('\n'));
	await openssl(['x509', '-req', '-in', csr, '-CA', files.caCertPath, '-CAkey', files.caKeyPath, '-CAcreateserial',
		'-out', files.certPath, '-days', '825', '-sha256', '-extfile', ext], dir);
	return { ...files, caPem: await readFile(files.caCertPath, 'utf8') };
}

/** The CA already in `dir` (made by makeLocalCa), or a new one: a restart keeps the certificate clients trust. */
async function localCaIn(dir: string): Promise<LocalCa> {
	const files = { caCertPath: join(dir, 'ca.crt'), caKeyPath: join(dir, 'ca.key'), certPath: join(dir, 'server.crt'), keyPath: join(dir, 'server.key') };
	if (!Object.values(files).every((path) => existsSync(path))) return await makeLocalCa(dir);
	return { ...files, caPem: await readFile(files.caCertPath, 'utf8') };
}

// ---------------------------------------------------------------------------------------------
// Process

export interface N8nInstance {
	/** e.g. https://localhost:5678 (no trailing slash). */
	baseUrl: string;
	/** Base of production webhook URLs, e.g. https://localhost:5678/webhook (no trailing slash). */
	webhookBaseUrl: string;
	userFolder: string;
	logFile: string;
	/** Public API key (X-N8N-API-KEY). */
	apiKey: string;
	/** PEM of the CA that signed n8n's certificate (empty over http). */
	caPem: string;
	/** The TLS material in use (undefined over http). */
	tls?: LocalCa;
	port: number;
	runtime: N8nRuntime;
	pid: number;
	/** Logged-in REST call; `path` is relative to /rest (e.g. '/workflows'). Responses are `{ data }` envelopes. */
	rest<T = unknown>(method: HttpMethod, path: string, body?: unknown): Promise<HttpResult<T>>;
	/** Public API call; `path` is relative to /api/v1 (e.g. '/workflows'). */
	api<T = unknown>(method: HttpMethod, path: string, body?: unknown): Promise<HttpResult<T>>;
	/** Any request to this instance (e.g. a webhook URL), trusting its CA and reusing its connections. */
	fetch<T = unknown>(url: string, options?: HttpRequestOptions): Promise<HttpResult<T>>;
	/** n8n CLI against the same user folder and DB (its own task-broker port, so it can run beside the server). */
	cli(args: string[], options?: { timeoutMs?: number }): Promise<CommandResult>;
	/** Reads the log so far. */
	log(): Promise<string>;
	/** Stops the server and its task runner (the whole process group), then removes the user folder if startN8n made it, unless `keepUserFolder`. */
	stop(options?: { keepUserFolder?: boolean }): Promise<void>;
	/** Stops and starts again on the same user folder (DB, static data, package), port and certificate; returns the new instance. */
	restart(): Promise<N8nInstance>;
	/**
	 * Starts a queue-mode process (`n8n worker` or `n8n webhook`) with this instance's settings
	 * (DB, Redis, encryption key, TLS) and its own user folder holding the package; returns once
	 * it answers its readiness check.
	 */
	startProcess(role: N8nRole, options?: { name?: string; port?: number; env?: Record<string, string> }): Promise<N8nRoleProcess>;
}

export type N8nRole = 'worker' | 'webhook';

export interface N8nRoleProcess {
	role: N8nRole;
	name: string;
	/** The webhook process's HTTP port, or the worker's health-check port. */
	port: number;
	/** Base of this process's production webhook URLs (webhook processes), else its health server. */
	webhookBaseUrl: string;
	userFolder: string;
	logFile: string;
	/** Of the current run (changes with restart). */
	readonly pid: number;
	log(): Promise<string>;
	/** SIGTERM (n8n shuts down gracefully), then SIGKILL after the grace time. */
	stop(): Promise<void>;
	/** SIGKILL at once, as a crash or an out-of-memory kill ends a process. */
	kill(): Promise<void>;
	/** Starts it again (same folder, port and log) after stopping it if it still runs. */
	restart(): Promise<void>;
}

export interface StartOptions {
	runtime: N8nRuntime;
	/** An `npm pack` tarball to install as the community package. */
	packageTarball?: string;
	/** An unpacked package folder to copy (only package.json and its `files` when it lists them). */
	packageDir?: string;
	protocol?: 'https' | 'http';
	/** Default: a free port. */
	port?: number;
	/** Reuse a CA (e.g. one a mock service also uses); default: a fresh one in the user folder. */
	tls?: LocalCa;
	/** Serve the editor UI (default false: N8N_DISABLE_UI=true). */
	ui?: boolean;
	logLevel?: 'debug' | 'info' | 'warn';
	/** Extra environment for n8n (wins over the defaults). */
	env?: Record<string, string>;
	ownerEmail?: string;
	ownerPassword?: string;
	/** Default: a fresh mkdtemp folder, removed by stop(). */
	userFolder?: string;
	readyTimeoutMs?: number;
	/** Start from a copy of a pre-migrated DB (default true); false runs the migrations in this start. */
	migratedDb?: boolean;
	/** Node types that must be loaded (e.g. 'n8n-nodes-svc.svc'); start fails with the log tail otherwise. */
	expectNodeTypes?: string[];
	/** Whether stop() deletes the user folder; default: only when startN8n created it. */
	removeUserFolderOnStop?: boolean;
}

async function installPackage(options: StartOptions, userFolder: string): Promise<void> {
	const target = join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME);
	await mkdir(target, { recursive: true });
	if (options.packageTarball) {
		// npm pack puts everything under package/.
		const result = await runCommand('tar', ['-xzf', options.packageTarball, '-C', target, '--strip-components=1']);
		if (result.code !== 0) throw new Error(`Extracting ${options.packageTarball} failed: ${result.stderr.trim()}`);
	} else if (options.packageDir) {
		const source = options.packageDir;
		const manifest = JSON.parse(await readFile(join(source, 'package.json'), 'utf8')) as { files?: string[] };
		// Like npm pack: package.json plus its `files`, so a project folder's node_modules never comes along.
		const entries = manifest.files ? ['package.json', ...manifest.files] : undefined;
		if (entries) {
			for (const entry of entries) {
				if (existsSync(join(source, entry))) await cp(join(source, entry), join(target, entry), { recursive: true });
			}
		} else {
			await cp(source, target, { recursive: true, filter: (path) => !/[\\/](node_modules|\.git)([\\/]|$)/.test(path.slice(source.length)) });
		}
	}
}

/**
 * Environment for an n8n child: the caller's, minus what belongs to the caller. Under jest,
 * NODE_ENV=test makes `n8n start` exit 1 without a word; npm_config_* would reconfigure n8n's own
 * npm calls; NODE_OPTIONS may carry the test runner's loaders; N8N_*, DB_*, QUEUE_*, WEBHOOK_URL and the like would
 * reconfigure the instance.
 */
function n8nProcessEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
	return childEnv(extra, /^(npm_|N8N_|DB_|JEST_|NODE_ENV$|NODE_OPTIONS$|WEBHOOK_URL$|QUEUE_|EXECUTIONS_|OFFLOAD_)/i);
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
		if (result.code !== 0) throw new Error(`Migrating a template DB (n8n list:workflow) failed with exit ${result.code}: ${(result.stdout + result.stderr).slice(-2000)}`);
		// Only the DB: the config file and logs belong to each user folder.
		const staged = join(work, 'template');
		await mkdir(staged);
		for (const file of DB_FILES) {
			if (existsSync(join(work, '.n8n', file))) await rename(join(work, '.n8n', file), join(staged, file));
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

interface BcryptJs {
	hashSync(password: string, rounds: number): string;
}

/** Starts n8n and returns once it is ready, logged in and holding a public API key. */
export async function startN8n(options: StartOptions): Promise<N8nInstance> {
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
	const dbDir = join(userFolder, '.n8n');
	if (options.migratedDb !== false && !existsSync(join(dbDir, DB_FILES[0]))) {
		const template = await migratedDbTemplate(runtime);
		await mkdir(dbDir, { recursive: true });
		for (const file of DB_FILES) if (existsSync(join(template, file))) await copyFile(join(template, file), join(dbDir, file));
	}
	const tls = protocol === 'https' ? options.tls ?? (await localCaIn(join(userFolder, 'tls'))) : undefined;
	const baseUrl = `${protocol}://localhost:${port}`;

	// Cost 4 keeps hashing and n8n's login check fast; the regex n8n applies accepts any cost.
	const bcrypt = createRequire(join(runtime.dir, 'node_modules', 'n8n', 'package.json'))('bcryptjs') as BcryptJs;
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
		...(tls ? { N8N_SSL_KEY: tls.keyPath, N8N_SSL_CERT: tls.certPath, NODE_EXTRA_CA_CERTS: tls.caCertPath } : {}),
	};
	const serverEnv = { ...baseEnv, N8N_RUNNERS_BROKER_PORT: String(await freePort()), ...options.env };

	// Own process group, so stop() reaches the task runner too.
	const group = spawnGroup(runtime.nodeBin, [runtime.n8nBin, 'start'], { cwd: userFolder, env: n8nProcessEnv(serverEnv), logFile });
	const { pid } = group;

	const agent = protocol === 'https' ? new HttpsAgent({ keepAlive: true, ca: tls?.caPem }) : new HttpAgent({ keepAlive: true });
	const browserId = randomUUID();
	let cookie = '';
	let apiKey = '';

	const stop = async (stopOptions: { keepUserFolder?: boolean } = {}): Promise<void> => {
		agent.destroy();
		await group.stop();
		if (removeFolder && !stopOptions.keepUserFolder) await rm(userFolder, { recursive: true, force: true });
	};

	const instanceFetch = async <T>(url: string, fetchOptions: HttpRequestOptions = {}): Promise<HttpResult<T>> =>
		await request<T>(url, { agent, ...fetchOptions });
	const rest = async <T>(method: HttpMethod, path: string, body?: unknown): Promise<HttpResult<T>> =>
		await instanceFetch<T>(`${baseUrl}/rest${path}`, {
			method,
			body,
			headers: { 'browser-id': browserId, ...(cookie ? { cookie } : {}) },
		});
	const api = async <T>(method: HttpMethod, path: string, body?: unknown): Promise<HttpResult<T>> =>
		await instanceFetch<T>(`${baseUrl}/api/v1${path}`, { method, body, headers: { 'x-n8n-api-key': apiKey } });
	const cli = async (args: string[], cliOptions: { timeoutMs?: number } = {}): Promise<CommandResult> =>
		await runCommand(runtime.nodeBin, [runtime.n8nBin, ...args], {
			cwd: userFolder,
			env: n8nProcessEnv({ ...baseEnv, N8N_RUNNERS_BROKER_PORT: String(await freePort()), ...options.env }),
			timeoutMs: cliOptions.timeoutMs ?? 120_000,
		});

	try {
		const deadline = Date.now() + readyTimeoutMs;
		for (;;) {
			const exited = group.exited();
			if (exited) throw new Error(`n8n exited during start-up (code ${exited.code}, signal ${exited.signal})`);
			// 1.x reports ready before its REST routes exist: an anonymous GET /rest/login answers 401 once they do.
			const ready = await instanceFetch(`${baseUrl}/healthz/readiness`, { timeoutMs: 2_000 }).catch(() => undefined);
			if (ready?.status === 200 && (await rest('GET', '/login').catch(() => undefined))?.status === 401) break;
			if (Date.now() > deadline) throw new Error(`n8n was not ready within ${readyTimeoutMs} ms`);
			await sleep(150);
		}

		if (runtime.version === 'v1') {
			const setup = await rest('POST', '/owner/setup', { email: ownerEmail, password: ownerPassword, ...OWNER_NAME });
			// 400 on a restart: the owner exists already.
			if (setup.status !== 200 && setup.status !== 400) throw new Error(`POST /rest/owner/setup answered ${setup.status}: ${JSON.stringify(setup.body)}`);
		}
		const login = await rest<unknown>('POST', '/login', { emailOrLdapLoginId: ownerEmail, password: ownerPassword });
		if (login.status !== 200) throw new Error(`POST /rest/login answered ${login.status}: ${JSON.stringify(login.body)}`);
		const setCookie = login.headers['set-cookie'] ?? [];
		cookie = setCookie.map((line) => line.split(';')[0]).join('; ');
		if (!cookie.includes('n8n-auth=')) throw new Error(`POST /rest/login set no n8n-auth cookie (${setCookie.join(' | ')})`);

		const allowed = await rest<{ data: string[] }>('GET', '/api-keys/scopes');
		if (allowed.status !== 200) throw new Error(`GET /rest/api-keys/scopes answered ${allowed.status}: ${JSON.stringify(allowed.body)}`);
		const scopes = API_KEY_SCOPES.filter((scope) => allowed.body.data.includes(scope));
		// Labels are unique per user: a restart on the same user folder needs a new one.
		const created = await rest<{ data: { rawApiKey: string } }>('POST', '/api-keys', { label: `e2e ${randomUUID()}`, scopes, expiresAt: null });
		if (created.status !== 200) throw new Error(`POST /rest/api-keys answered ${created.status}: ${JSON.stringify(created.body)}`);
		apiKey = created.body.data.rawApiKey;

		for (const type of options.expectNodeTypes ?? []) {
			const described = await rest('POST', '/node-types', { nodeInfos: [{ name: type }] });
			if (described.status !== 200) throw new Error(`Node type ${type} is not loaded: ${JSON.stringify(described.body).slice(0, 300)}`);
		}
	} catch (error) {
		await stop({ keepUserFolder: true });
		const message = error instanceof Error ? error.message : String(error);
		throw new Error(`${message}\n--- last lines of ${logFile} ---\n${await logTail(logFile)}`);
	}

	let processCount = 0;
	const startProcess = async (role: N8nRole, processOptions: { name?: string; port?: number; env?: Record<string, string> } = {}): Promise<N8nRoleProcess> => {
		const name = processOptions.name ?? `${role}-${++processCount}`;
		const folder = join(userFolder, 'processes', name);
		// Each process has its own folder, as each container would: n8n keeps a crash journal and an event log there.
		if (!existsSync(folder)) {
			await mkdir(folder, { recursive: true });
			await installPackage(options, folder);
		}
		const processPort = processOptions.port ?? (await freePort());
		// The worker's health server is plain http; the webhook process serves like the main.
		const processBase = role === 'webhook' ? `${protocol}://localhost:${processPort}` : `http://127.0.0.1:${processPort}`;
		const roleEnv: Record<string, string> = role === 'worker'
			? { QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(processPort), N8N_WORKER_SERVER_ADDRESS: '127.0.0.1', N8N_RUNNERS_BROKER_PORT: String(await freePort()) }
			: { N8N_PORT: String(processPort) };
		const processLog = join(folder, 'n8n.log');
		const launch = async (): Promise<ProcessGroup> => {
			const group = spawnGroup(runtime.nodeBin, [runtime.n8nBin, role], {
				cwd: folder,
				env: n8nProcessEnv({ ...baseEnv, ...options.env, N8N_USER_FOLDER: folder, ...roleEnv, ...processOptions.env }),
				logFile: processLog,
			});
			const deadline = Date.now() + readyTimeoutMs;
			for (;;) {
				const exited = group.exited();
				const probe = role === 'webhook' ? instanceFetch : request;
				const ready = exited ? undefined : await probe(`${processBase}/healthz/readiness`, { timeoutMs: 2_000 }).catch(() => undefined);
				if (ready?.status === 200) return group;
				if (exited || Date.now() > deadline) {
					await group.stop();
					throw new Error(`n8n ${role} ${name} ${exited ? `exited during start-up (code ${exited.code})` : `was not ready within ${readyTimeoutMs} ms`}\n--- last lines of ${processLog} ---\n${await logTail(processLog)}`);
				}
				await sleep(150);
			}
		};
		let current = await launch();
		return {
			role,
			name,
			port: processPort,
			webhookBaseUrl: `${processBase}/webhook`,
			userFolder: folder,
			logFile: processLog,
			get pid() {
				return current.pid;
			},
			log: async () => await readFile(processLog, 'utf8'),
			stop: async () => await current.stop(),
			kill: async () => await current.kill(),
			restart: async () => {
				await current.stop();
				current = await launch();
			},
		};
	};

	return {
		baseUrl,
		webhookBaseUrl: `${baseUrl}/webhook`,
		userFolder,
		logFile,
		apiKey,
		caPem: tls?.caPem ?? '',
		tls,
		port,
		runtime,
		pid,
		rest,
		api,
		fetch: instanceFetch,
		cli,
		startProcess,
		log: async () => await readFile(logFile, 'utf8'),
		stop,
		restart: async () => {
			await stop({ keepUserFolder: true });
			// The package is already in the user folder: no second copy.
			return await startN8n({ ...options, packageTarball: undefined, packageDir: undefined, userFolder, port, tls, removeUserFolderOnStop: removeFolder });
		},
	};
}

// ---------------------------------------------------------------------------------------------
// Helpers

function fail(what: string, result: HttpResult): never {
	const body = typeof result.body === 'string' ? result.body : JSON.stringify(result.body);
	throw new Error(`${what} answered HTTP ${result.status}: ${body}`);
}

export interface CredentialInput {
	/** 1–16 letters, digits, `_` or `-`; 2.x keeps it exactly, so workflow JSON can refer to it (1.x ignores it: importCredential then throws). */
	id?: string;
	name: string;
	type: string;
	data: IDataObject;
}

export interface CredentialRef {
	id: string;
	name: string;
	type: string;
}

/** Creates a credential through the public API (n8n encrypts `data`; the type's schema is validated). */
export async function importCredential(n8n: N8nInstance, credential: CredentialInput): Promise<CredentialRef> {
	const result = await n8n.api<CredentialRef>('POST', '/credentials', credential);
	if (result.status !== 200) fail(`POST /api/v1/credentials (${credential.type})`, result);
	if (credential.id !== undefined && result.body.id !== credential.id) {
		throw new Error(`n8n ${n8n.runtime.n8nVersion} ignored the credential id ${credential.id} (made ${result.body.id}): refer to the returned id`);
	}
	return { id: result.body.id, name: result.body.name, type: result.body.type };
}

export type WorkflowNodeInput = Pick<INode, 'name' | 'type' | 'typeVersion' | 'parameters'> & Partial<Omit<INode, 'name' | 'type' | 'typeVersion' | 'parameters'>>;

export interface WorkflowInput {
	name: string;
	nodes: WorkflowNodeInput[];
	connections: IConnections;
	settings?: IWorkflowSettings;
	staticData?: IDataObject | string | null;
	pinData?: IPinData;
	/** Present in exported JSON; n8n assigns its own ids, so these are not sent. */
	id?: string;
	active?: boolean;
	tags?: unknown[];
	meta?: IDataObject;
	versionId?: string;
}

export interface WorkflowRecord {
	id: string;
	name: string;
	active: boolean;
	nodes: INode[];
	connections: IConnections;
	settings: IWorkflowSettings;
	versionId: string;
	staticData?: IDataObject | null;
}

/** Creates a workflow through the public API; returns it with n8n's id (exported ids are not kept). */
export async function importWorkflow(n8n: N8nInstance, workflow: WorkflowInput): Promise<WorkflowRecord> {
	const body = {
		name: workflow.name,
		// Node ids are required by the engine; exported JSON usually has them, hand-written often not.
		nodes: workflow.nodes.map((node) => ({ id: randomUUID(), position: [0, 0], ...node })),
		connections: workflow.connections,
		settings: workflow.settings ?? {},
		...(workflow.staticData !== undefined ? { staticData: workflow.staticData } : {}),
		...(workflow.pinData !== undefined ? { pinData: workflow.pinData } : {}),
	};
	const result = await n8n.api<WorkflowRecord>('POST', '/workflows', body);
	if (result.status !== 200) fail(`POST /api/v1/workflows (${workflow.name})`, result);
	return result.body;
}

export async function getWorkflow(n8n: N8nInstance, workflowId: string): Promise<WorkflowRecord> {
	const result = await n8n.api<WorkflowRecord>('GET', `/workflows/${workflowId}`);
	if (result.status !== 200) fail(`GET /api/v1/workflows/${workflowId}`, result);
	return result.body;
}

/** Activates (publishes) a workflow; a trigger whose create() throws makes this throw with n8n's message. */
export async function activate(n8n: N8nInstance, workflowId: string): Promise<WorkflowRecord> {
	const result = await n8n.api<WorkflowRecord>('POST', `/workflows/${workflowId}/activate`);
	if (result.status !== 200) fail(`POST /api/v1/workflows/${workflowId}/activate`, result);
	return result.body;
}

export async function deactivate(n8n: N8nInstance, workflowId: string): Promise<WorkflowRecord> {
	const result = await n8n.api<WorkflowRecord>('POST', `/workflows/${workflowId}/deactivate`);
	if (result.status !== 200) fail(`POST /api/v1/workflows/${workflowId}/deactivate`, result);
	return result.body;
}

export interface ExecutionRecord {
	id: string;
	finished: boolean;
	mode: string;
	status: ExecutionStatus;
	startedAt: string;
	stoppedAt: string | null;
	workflowId: string;
	retryOf?: string | null;
	/** Only with includeData. */
	data?: IRunExecutionData;
}

interface ExecutionList {
	data: ExecutionRecord[];
	nextCursor: string | null;
}

/** Newest first, as n8n lists them. */
export async function listExecutions(n8n: N8nInstance, workflowId: string, options: { includeData?: boolean; status?: ExecutionStatus } = {}): Promise<ExecutionRecord[]> {
	const query = new URLSearchParams({ workflowId, limit: '250', includeData: String(options.includeData ?? false) });
	if (options.status) query.set('status', options.status);
	const result = await n8n.api<ExecutionList>('GET', `/executions?${query.toString()}`);
	if (result.status !== 200) fail(`GET /api/v1/executions?${query.toString()}`, result);
	return result.body.data.map((execution) => ({ ...execution, id: String(execution.id) }));
}

export async function getExecution(n8n: N8nInstance, executionId: string, includeData = true): Promise<ExecutionRecord> {
	const result = await n8n.api<ExecutionRecord>('GET', `/executions/${executionId}?includeData=${String(includeData)}`);
	if (result.status !== 200) fail(`GET /api/v1/executions/${executionId}`, result);
	return { ...result.body, id: String(result.body.id) };
}

/** Statuses of an execution that has not come to an end yet. */
export const UNFINISHED: readonly ExecutionStatus[] = ['new', 'running', 'unknown'];

/** Polls until the workflow has at least `count` executions, none of them still running; returns them oldest first. */
export async function waitForExecutions(n8n: N8nInstance, workflowId: string, count: number, timeoutMs = 15_000, options: { includeData?: boolean } = {}): Promise<ExecutionRecord[]> {
	const deadline = Date.now() + timeoutMs;
	let seen: ExecutionRecord[] = [];
	for (;;) {
		seen = await listExecutions(n8n, workflowId, options);
		if (seen.length >= count && !seen.some((execution) => UNFINISHED.includes(execution.status))) return seen.reverse();
		if (Date.now() > deadline) {
			const states = seen.map((execution) => `${execution.id}:${execution.status}`).join(', ') || 'none';
			throw new Error(`Workflow ${workflowId}: expected ${count} finished execution(s) within ${timeoutMs} ms, saw ${states}`);
		}
		await sleep(100);
	}
}

async function waitForExecution(n8n: N8nInstance, executionId: string, timeoutMs: number): Promise<ExecutionRecord> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const execution = await n8n.api<ExecutionRecord>('GET', `/executions/${executionId}?includeData=false`);
		// 404 until the execution row is written; 503 while n8n is too busy to answer (heavy runs).
		if (execution.status === 200 && !UNFINISHED.includes(execution.body.status)) return await getExecution(n8n, executionId, true);
		if (![200, 404, 503].includes(execution.status)) fail(`GET /api/v1/executions/${executionId}`, execution);
		if (Date.now() > deadline) throw new Error(`Execution ${executionId} did not finish within ${timeoutMs} ms`);
		await sleep(50);
	}
}

/**
 * Runs a workflow as the editor's "Execute workflow" button does (REST POST /rest/workflows/:id/run,
 * starting from its Manual Trigger or `triggerNode`), waits for it and returns it with its data.
 */
export async function executeWorkflow(n8n: N8nInstance, workflowId: string, options: { triggerNode?: string; timeoutMs?: number } = {}): Promise<ExecutionRecord> {
	const workflow = await getWorkflow(n8n, workflowId);
	const triggerNode = options.triggerNode ?? workflow.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger')?.name;
	if (!triggerNode) throw new Error(`Workflow ${workflowId} has no Manual Trigger: pass options.triggerNode`);
	// 2.x runs the stored workflow and ignores workflowData; 1.x requires it.
	const result = await n8n.rest<{ data: { executionId?: string; waitingForWebhook?: boolean } }>('POST', `/workflows/${workflowId}/run`, { workflowData: workflow, triggerToStartFrom: { name: triggerNode } });
	if (result.status !== 200) fail(`POST /rest/workflows/${workflowId}/run`, result);
	const { executionId, waitingForWebhook } = result.body.data;
	if (!executionId) throw new Error(`Workflow ${workflowId} did not start (waitingForWebhook: ${String(waitingForWebhook)}): start it from a non-webhook trigger`);
	return await waitForExecution(n8n, String(executionId), options.timeoutMs ?? 30_000);
}

/**
 * Opens the editor's "Listen for test event" on a webhook trigger: the same REST call the
 * editor makes (POST /rest/workflows/:id/run from that trigger), which registers the trigger's
 * test webhook and answers `waitingForWebhook` instead of running.
 */
export async function startTestListen(n8n: N8nInstance, workflowId: string, triggerNode: string): Promise<void> {
	const workflow = await getWorkflow(n8n, workflowId);
	const result = await n8n.rest<{ data: { waitingForWebhook?: boolean } }>('POST', `/workflows/${workflowId}/run`, { workflowData: workflow, triggerToStartFrom: { name: triggerNode } });
	if (result.status !== 200) fail(`POST /rest/workflows/${workflowId}/run`, result);
	if (result.body.data.waitingForWebhook !== true) throw new Error(`Workflow ${workflowId}: "${triggerNode}" did not start listening (${JSON.stringify(result.body.data)})`);
}

/** The editor's "Stop listening": n8n removes the workflow's test webhooks. */
export async function stopTestListen(n8n: N8nInstance, workflowId: string): Promise<void> {
	const result = await n8n.rest('DELETE', `/test-webhook/${workflowId}`);
	if (result.status !== 200) fail(`DELETE /rest/test-webhook/${workflowId}`, result);
}

/** Replaces a stored credential's data, as saving it in the editor does (PATCH /rest/credentials/:id). */
export async function updateCredential(n8n: N8nInstance, credential: CredentialRef, data: IDataObject): Promise<void> {
	const result = await n8n.rest('PATCH', `/credentials/${credential.id}`, { name: credential.name, type: credential.type, data });
	if (result.status !== 200) fail(`PATCH /rest/credentials/${credential.id}`, result);
}

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

/**
 * Runs n8n's own credential test (the type's `test` request or a node's credentialTest method)
 * the way the editor's "Test" button does: GET /rest/credentials/:id?includeData=true, then
 * POST /rest/credentials/test with that (redacted) data, which n8n completes from the stored
 * secrets. Unsaved data is stored as a temporary credential, tested, and deleted.
 */
export async function testCredential(n8n: N8nInstance, target: string | (Omit<CredentialInput, 'id' | 'name'> & { name?: string })): Promise<CredentialTestResult> {
	if (typeof target === 'string') {
		const stored = await n8n.rest<{ data: CredentialRef & { data: IDataObject } }>('GET', `/credentials/${target}?includeData=true`);
		if (stored.status !== 200) fail(`GET /rest/credentials/${target}?includeData=true`, stored);
		const { id, name, type, data } = stored.body.data;
		const result = await n8n.rest<{ data: CredentialTestResult }>('POST', '/credentials/test', { credentials: { id, name, type, data } });
		if (result.status !== 200) fail('POST /rest/credentials/test', result);
		return result.body.data;
	}
	const temporary = await importCredential(n8n, { name: target.name ?? `credential test ${randomUUID()}`, type: target.type, data: target.data });
	try {
		return await testCredential(n8n, temporary.id);
	} finally {
		await n8n.api('DELETE', `/credentials/${temporary.id}`);
	}
}
