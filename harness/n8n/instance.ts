/** What a started n8n looks like to the tools and tests: the main instance and its queue-mode processes. */
import type { N8nRuntime } from '../n8n-runtime/install';
import type { LocalCa } from '../local-ca';
import type { CommandResult } from '../commands';
import type { N8nSession, N8nSessionCalls } from './session';

export interface N8nInstance extends N8nSessionCalls {
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
	/** Its owner's login and API key: how another process reaches it (shared.ts). */
	session: N8nSession;
	/** n8n CLI against the same user folder and DB (its own task-broker port, so it can run beside the server). */
	cli(args: string[], options?: { timeoutMs?: number }): Promise<CommandResult>;
	/** Reads the log so far. */
	log(): Promise<string>;
	/** Stops the server and its task runner (the whole process group), then removes the user folder if startN8n made it, unless `keepUserFolder`. */
	stop(options?: { keepUserFolder?: boolean }): Promise<void>;
	/** Stops and starts again on the same user folder (DB, static data, package), port and certificate; returns the new instance. */
	restart(): Promise<N8nInstance>;
	/** SIGKILL to the server and its task runner at once, as a crash or an out-of-memory kill ends them. */
	kill(): Promise<void>;
	/** How the server process ended, once it has (killed, crashed or stopped). */
	exited(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
	/**
	 * Starts a queue-mode process (`n8n worker` or `n8n webhook`) with this instance's settings
	 * (DB, Redis, encryption key, TLS) and its own user folder holding the package; returns once
	 * it answers its readiness check.
	 */
	startProcess(
		role: N8nRole,
		options?: { name?: string; port?: number; env?: Record<string, string> },
	): Promise<N8nRoleProcess>;
}

export type N8nRole = 'worker' | 'webhook';

export interface N8nRoleProcess {
	role: N8nRole;
	name: string;
	/** The webhook process's HTTP port, or the worker's health-check port. */
	port: number;
	/** This process's own address: https://localhost:<port>. */
	baseUrl: string;
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
