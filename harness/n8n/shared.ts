/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * One n8n per major that a jest run's end-to-end files share when they need no n8n of their own
 * (no restart, kill, other settings or installer): jest's main process starts it at the run's
 * start (harness/jest/shared-n8n.ts), and each file attaches to it with its own sandbox and
 * credential. A start costs about 9 CPU-seconds on 2 cores; the files that share it would
 * otherwise start one each.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { logTail } from '../log-tail';
import type { LocalCa } from '../local-ca';
import type { N8nRuntime, RuntimeVersion } from '../n8n-runtime/install';
import { poll } from '../wait';
import type { N8nInstance } from './instance';
import type { N8nSession } from './session';
import { sessionRequests } from './session';

/** What a file needs to reach the shared n8n: written by the process that started it. */
export interface SharedN8n {
	session: N8nSession;
	webhookBaseUrl: string;
	userFolder: string;
	logFile: string;
	port: number;
	pid: number;
	runtime: N8nRuntime;
	tls: LocalCa;
}

/** The variable naming the folder where the shared n8n of `version` is described. */
const folderVariable = (version: RuntimeVersion) => `SVC_SHARED_N8N_${version.toUpperCase()}`;
const READY_FILE = 'n8n.json';
const FAILED_FILE = 'failed.txt';

/**
 * In jest's main process: makes the folder the files read, and starts `start` without waiting for
 * it, so the first files run meanwhile; what it started is described there for them (or why it
 * failed). Returns the started n8n, undefined if it failed.
 */
export async function announceSharedN8n(
	version: RuntimeVersion,
	start: () => Promise<N8nInstance>,
): Promise<{ started: Promise<N8nInstance | undefined>; folder: string }> {
	const folder = await mkdtemp(join(tmpdir(), `svc-shared-n8n-${version}-`));
	// Jest's workers start after its global set-up and inherit this.
	process.env[folderVariable(version)] = folder;
	const started = start()
		.then(async (n8n) => {
			try {
				// Renamed into place: a file polling for it never reads half of it.
				await writeFile(join(folder, `${READY_FILE}.part`), JSON.stringify(described(n8n)), {
					mode: 0o600,
				});
				await rename(join(folder, `${READY_FILE}.part`), join(folder, READY_FILE));
				return n8n;
			} catch (error) {
				await n8n.stop();
				throw error;
			}
		})
		.catch(async (error: unknown) => {
			await writeFile(join(folder, FAILED_FILE), String((error as Error).stack ?? error));
			return undefined;
		});
	return { started, folder };
}

/** What a file needs of `n8n` to attach to it (attached() is the other way). */
function described(n8n: N8nInstance): SharedN8n {
	if (!n8n.tls) throw new Error('A shared n8n serves https: the files trust its CA');
	const { session, webhookBaseUrl, userFolder, logFile, port, pid, runtime, tls } = n8n;
	return { session, webhookBaseUrl, userFolder, logFile, port, pid, runtime, tls };
}

/** The shared n8n this process announced that have started (jest's main process: its reporter). */
export function startedSharedN8n(): Array<{ version: RuntimeVersion; pid: number }> {
	return (['v1', 'v2'] as const).flatMap((version) => {
		const folder = process.env[folderVariable(version)];
		if (!folder) return [];
		try {
			const { pid } = JSON.parse(readFileSync(join(folder, READY_FILE), 'utf8')) as SharedN8n;
			return [{ version, pid }];
		} catch {
			return [];
		}
	});
}

export async function removeAnnouncement(folder: string): Promise<void> {
	await rm(folder, { recursive: true, force: true });
}

/** In a test file: the run's shared n8n of `version`, once it has started. */
export async function attachSharedN8n(
	version: RuntimeVersion,
): Promise<{ n8n: N8nInstance; tls: LocalCa }> {
	const folder = process.env[folderVariable(version)];
	if (!folder)
		throw new Error(
			`No shared n8n ${version} in this run (${folderVariable(version)} is not set): run the file with jest's end-to-end projects (npm run test:e2e)`,
		);
	// Its start has a ready timeout of its own (90 s): this one only bounds a lost announcement.
	const shared = await poll(
		async () => {
			const failed = await readFile(join(folder, FAILED_FILE), 'utf8').catch(() => undefined);
			if (failed !== undefined)
				throw new Error(`The shared n8n ${version} did not start: ${failed}`);
			const ready = await readFile(join(folder, READY_FILE), 'utf8').catch(() => undefined);
			return ready === undefined ? undefined : (JSON.parse(ready) as SharedN8n);
		},
		{
			timeoutMs: 5 * 60_000,
			everyMs: 100,
			timedOut: () => {
				throw new Error(`The shared n8n ${version} was not reported started within 5 minutes`);
			},
		},
	);
	return { n8n: attached(shared), tls: shared.tls };
}

/** The shared n8n as one file sees it: its requests, log and addresses; it may not stop it. */
function attached(shared: SharedN8n): N8nInstance {
	const { session, logFile, pid } = shared;
	const { rest, api, fetch, close } = sessionRequests(
		session,
		async (error, method, url) =>
			new Error(
				`${method} ${url} got no answer (${error.message}) from the shared n8n (pid ${pid})\n--- last lines of ${logFile} ---\n${await logTail(logFile)}`,
				{ cause: error },
			),
	);
	const notShared = (what: string) => (): Promise<never> =>
		Promise.reject(
			new Error(
				`${what} needs an n8n of the file's own: this one is shared by the run's files (startEnvironment without shared)`,
			),
		);
	return {
		baseUrl: session.baseUrl,
		webhookBaseUrl: shared.webhookBaseUrl,
		userFolder: shared.userFolder,
		logFile,
		apiKey: session.apiKey,
		caPem: session.caPem,
		tls: shared.tls,
		port: shared.port,
		runtime: shared.runtime,
		pid,
		session,
		rest,
		api,
		fetch,
		log: async () => await readFile(logFile, 'utf8'),
		// The run's global teardown stops it; a file only lets go of its connections.
		stop: () => {
			close();
			return Promise.resolve();
		},
		cli: notShared('The n8n CLI'),
		restart: notShared('A restart'),
		kill: notShared('A kill'),
		exited: () => undefined,
		startProcess: notShared('A queue-mode process'),
	};
}
