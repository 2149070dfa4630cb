/* eslint-disable @n8n/community-nodes/require-node-api-error -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * n8n in queue mode on loopback, as teams run it at scale: PostgreSQL and Redis (Debian's
 * packages), one main that owns activation, workers that execute, and webhook processors that
 * receive production webhooks, every process with the package under test loaded.
 */
import type { RuntimeVersion } from '../n8n-runtime/install';
import { ensureN8nRuntime } from '../n8n-runtime/install';
import type { BackingServices } from '../backing-services';
import { startBackingServices } from '../backing-services';
import type { CredentialRef } from './api';
import type { LocalCa } from '../local-ca';
import type { N8nInstance, N8nRoleProcess, StartOptions } from './instance';
import { importCredential } from './api';
import { startN8n } from './process';
import { freePort } from '../free-port';

export interface QueueTopology {
	services: BackingServices;
	/** Replace it with what its restart() returns after a kill; stop() stops the one here. */
	main: N8nInstance;
	workers: N8nRoleProcess[];
	/** Production webhook URLs registered by the main point at the first one (with none, at the main). */
	webhookProcessors: N8nRoleProcess[];
	/** The worker whose log says it started this execution. */
	workerThatRan(executionId: string): Promise<N8nRoleProcess | undefined>;
	/** The executions `worker` has started and not finished, by its log. */
	runsUnderWayOn(worker: N8nRoleProcess): Promise<string[]>;
	stop(): Promise<void>;
}

export interface QueueTopologyOptions {
	version?: RuntimeVersion;
	/** The package, as a tarball or a folder (see StartOptions). */
	packageTarball?: string;
	packageDir?: string;
	tls: LocalCa;
	/** The main's port and editor (default: a free port, no editor). */
	port?: number;
	ui?: boolean;
	userFolder?: string;
	workers?: number;
	webhookProcessors?: number;
	logLevel?: StartOptions['logLevel'];
	expectNodeTypes?: string[];
	/** Base of the production webhook URLs the main registers, e.g. a balancer in front of the processors (default: the first processor). */
	webhookUrl?: string;
	/** Extra environment for every process of the topology. */
	env?: Record<string, string>;
}

/**
 * Timings of Bull's job locks, shortened from n8n's defaults (60 s lock, 30 s stalled check) so
 * a killed worker's job is noticed within seconds.
 */
const QUEUE_TIMINGS = {
	QUEUE_WORKER_LOCK_DURATION: '8000',
	QUEUE_WORKER_LOCK_RENEW_TIME: '2000',
	QUEUE_WORKER_STALLED_INTERVAL: '3000',
};

export async function startQueueTopology(options: QueueTopologyOptions): Promise<QueueTopology> {
	const runtime = await ensureN8nRuntime(options.version ?? 'v2');
	const services = await startBackingServices();
	const webhookPorts = await Promise.all(
		Array.from({ length: options.webhookProcessors ?? 1 }, () => freePort()),
	);
	// Without webhook processors (a suite that only polls) the main's own URL stands.
	const webhookUrl =
		options.webhookUrl ??
		(webhookPorts.length > 0 ? `https://localhost:${webhookPorts[0]}/` : undefined);
	const started: N8nRoleProcess[] = [];
	let main: N8nInstance | undefined;
	const stop = async (): Promise<void> => {
		await Promise.all(started.map(async (process) => await process.stop()));
		await main?.stop();
		await services.stop();
	};
	try {
		main = await startN8n({
			runtime,
			packageTarball: options.packageTarball,
			packageDir: options.packageDir,
			port: options.port,
			ui: options.ui,
			userFolder: options.userFolder,
			tls: options.tls,
			logLevel: options.logLevel ?? 'info',
			// PostgreSQL: n8n migrates it in this start.
			migratedDb: false,
			readyTimeoutMs: 180_000,
			expectNodeTypes: options.expectNodeTypes,
			env: {
				...services.n8nEnv,
				...QUEUE_TIMINGS,
				EXECUTIONS_MODE: 'queue',
				// The editor's "Execute workflow" runs on a worker too, so manual runs prove the same thing.
				OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
				// 2.x renamed WEBHOOK_URL (still read, with a deprecation warning).
				...(webhookUrl && {
					[runtime.version === 'v1' ? 'WEBHOOK_URL' : 'N8N_WEBHOOK_URL']: webhookUrl,
				}),
				...options.env,
			},
		});
		const mainInstance = main;
		const launched = await Promise.all([
			...Array.from(
				{ length: options.workers ?? 2 },
				async (_, index) =>
					await mainInstance.startProcess('worker', { name: `worker-${index + 1}` }),
			),
			...webhookPorts.map(
				async (port, index) =>
					await mainInstance.startProcess('webhook', { name: `webhook-${index + 1}`, port }),
			),
		]);
		started.push(...launched);
	} catch (error) {
		await stop();
		throw error;
	}
	const workers = started.filter((process) => process.role === 'worker');
	const topology: QueueTopology = {
		services,
		main,
		workers,
		webhookProcessors: started.filter((process) => process.role === 'webhook'),
		async workerThatRan(executionId) {
			const line = `Worker started execution ${executionId} (`;
			for (const worker of workers) if ((await worker.log()).includes(line)) return worker;
			return undefined;
		},
		async runsUnderWayOn(worker) {
			const log = await worker.log();
			return [...log.matchAll(/Worker started execution (\d+) \(/g)]
				.map(([, id]) => id)
				.filter((id) => !log.includes(`Worker finished execution ${id} (`));
		},
		// The main in use: a test may have replaced it with a restarted one.
		async stop() {
			main = topology.main;
			await stop();
		},
	};
	return topology;
}

/** The id examples/exactly-once-with-postgres.json uses for its database credential. */
export const EVENTS_DB_CREDENTIAL_ID = 'svcEventsDb';

/**
 * What examples/exactly-once-with-postgres.json needs: the table of claimed event ids in the
 * topology's PostgreSQL, and an "Events database" credential for n8n's Postgres node (1.x
 * ignores the given id: refer to the returned one).
 */
export async function prepareEventsDatabase(topology: QueueTopology): Promise<CredentialRef> {
	await topology.services.sql(
		'CREATE TABLE IF NOT EXISTS svc_processed_events (event_id text PRIMARY KEY, claimed_at timestamptz NOT NULL DEFAULT now())',
	);
	const { host, port, database, user, password } = topology.services.postgres;
	return await importCredential(topology.main, {
		id: topology.main.runtime.version === 'v1' ? undefined : EVENTS_DB_CREDENTIAL_ID,
		name: 'Events database',
		type: 'postgres',
		// 1.x's public API wants sshTunnel stated (its schema requires the SSH fields otherwise).
		data: { host, port, database, user, password, ssl: 'disable', sshTunnel: false },
	});
}
