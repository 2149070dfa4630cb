/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * Queue-mode processes beside a started main: `n8n worker` and `n8n webhook`, each with the
 * main's settings (DB, Redis, encryption key, TLS) and a user folder of its own, as each
 * container would have.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request, type HttpRequestOptions, type HttpResult } from '../http';
import { freePort } from '../free-port';
import type { ProcessGroup } from '../process-groups';
import { spawnGroup, untilGroupReady } from '../process-groups';
import { recordTiming } from '../timings';
import type { N8nRole, N8nRoleProcess, StartOptions } from './instance';
import { installPackage, n8nProcessEnv } from './user-folder';

/** What a role process takes from the main it joins. */
export interface ParentInstance {
	options: StartOptions;
	userFolder: string;
	protocol: 'https' | 'http';
	/** The main's environment, before its own extra `options.env`. */
	env: Record<string, string>;
	readyTimeoutMs: number;
	/** The main's client (trusts its CA). */
	fetch<T = unknown>(url: string, options?: HttpRequestOptions): Promise<HttpResult<T>>;
}

/** Starts `n8n <role>` and returns once it answers its readiness check. */
export async function startRoleProcess(
	parent: ParentInstance,
	role: N8nRole,
	processOptions: { name: string; port?: number; env?: Record<string, string> },
): Promise<N8nRoleProcess> {
	const { name } = processOptions;
	const folder = join(parent.userFolder, 'processes', name);
	// Each process has its own folder, as each container would: n8n keeps a crash journal and an event log there.
	if (!existsSync(folder)) {
		await mkdir(folder, { recursive: true });
		await installPackage(parent.options, folder);
	}
	const processPort = processOptions.port ?? (await freePort());
	// The worker's health server is plain http; the webhook process serves like the main.
	const processBase =
		role === 'webhook'
			? `${parent.protocol}://localhost:${processPort}`
			: `http://127.0.0.1:${processPort}`;
	const roleEnv: Record<string, string> =
		role === 'worker'
			? {
					QUEUE_HEALTH_CHECK_ACTIVE: 'true',
					QUEUE_HEALTH_CHECK_PORT: String(processPort),
					N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
					N8N_RUNNERS_BROKER_PORT: String(await freePort()),
				}
			: { N8N_PORT: String(processPort) };
	const processLog = join(folder, 'n8n.log');
	const launch = async (): Promise<ProcessGroup> => {
		const startedAt = Date.now();
		const group = spawnGroup(
			parent.options.runtime.nodeBin,
			[parent.options.runtime.n8nBin, role],
			{
				cwd: folder,
				env: n8nProcessEnv({
					...parent.env,
					...parent.options.env,
					N8N_USER_FOLDER: folder,
					...roleEnv,
					...processOptions.env,
				}),
				logFile: processLog,
			},
		);
		const readiness = `${processBase}/healthz/readiness`;
		const probe = async () =>
			await (role === 'webhook'
				? parent.fetch(readiness, { timeoutMs: 2_000 })
				: request(readiness, { timeoutMs: 2_000 }));
		try {
			await untilGroupReady(
				`n8n ${role} ${name}`,
				group,
				async () => (await probe()).status === 200,
				{ timeoutMs: parent.readyTimeoutMs, logFile: processLog },
			);
		} catch (error) {
			await group.stop();
			throw error;
		}
		await recordTiming({
			kind: 'n8n start',
			label: `n8n ${parent.options.runtime.version} ${role}`,
			ms: Date.now() - startedAt,
		});
		return group;
	};
	let current = await launch();
	return {
		role,
		name,
		port: processPort,
		baseUrl: processBase,
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
}
