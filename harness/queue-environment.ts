/* eslint-disable @n8n/community-nodes/require-node-api-error -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * What the queue-mode suites run against: the sandbox, and n8n in queue mode (PostgreSQL, Redis,
 * a main, workers and webhook processors) with the packed package and a Svc credential for the
 * sandbox, all over https on loopback.
 */
import type { Sandbox } from '../sandbox';
import { startSandbox } from '../sandbox';
import { sandboxCredential } from './environment';
import type { LocalCa } from './local-ca';
import type { CredentialRef } from './n8n/api';
import { importCredential } from './n8n/api';
import type { InstalledPackage } from './n8n/community-packages';
import type { QueueTopology } from './n8n/queue';
import { startQueueTopology } from './n8n/queue';
import type { RuntimeVersion } from './n8n-runtime/install';
import type { InstallFrom } from './package-source';
import { packageSource } from './package-source';

export interface QueueEnvironment {
	topology: QueueTopology;
	sandbox: Sandbox;
	tls: LocalCa;
	/** The full-scope Svc credential for the sandbox, as the main stored it. */
	credential: CredentialRef;
	/** Seconds from starting PostgreSQL until every n8n process answered. */
	startSeconds: number;
	/** What n8n's installer answered on the main, when the package came through it (`installFrom`). */
	installed?: InstalledPackage;
	stop(): Promise<void>;
}

/**
 * Starts it all. The package is the packed build in every process's folder, or with `installFrom`
 * installed through the main by n8n's community-package installer from that registry, which
 * tells the running workers and webhook processors to install it too.
 */
export async function startQueueEnvironment(
	version: RuntimeVersion,
	options: {
		workers?: number;
		webhookProcessors?: number;
		installFrom?: InstallFrom;
	} = {},
): Promise<QueueEnvironment> {
	const source = await packageSource(options.installFrom);
	const { tls } = source;
	const sandbox = await startSandbox({
		allowLoopbackWebhooks: true,
		trustedCa: tls.caPem,
		// The service's own 15 s for an answer, not a shorter one: in queue mode an answer waits for a
		// worker to start the execution, which on a loaded machine takes seconds, and each copy sent
		// after a timeout the service would not have had costs an execution.
		delivery: { retryDelaysMs: [200, 500] },
	});
	const started = Date.now();
	let topology: QueueTopology;
	try {
		topology = await startQueueTopology({
			version,
			packageTarball: source.start.packageTarball,
			tls,
			workers: options.workers ?? 2,
			webhookProcessors: options.webhookProcessors ?? 2,
			expectNodeTypes: source.start.expectNodeTypes,
			env: source.start.env,
		});
	} catch (error) {
		await sandbox.close();
		await source.dispose();
		throw error;
	}
	const startSeconds = Math.round((Date.now() - started) / 100) / 10;
	let installed: InstalledPackage | undefined;
	let credential: CredentialRef;
	try {
		installed = await source.install(topology.main);
		credential = await importCredential(topology.main, sandboxCredential(version, sandbox.url));
	} catch (error) {
		await topology.stop();
		await sandbox.close();
		await source.dispose();
		throw error;
	}
	return {
		installed,
		topology,
		sandbox,
		tls,
		credential,
		startSeconds,
		stop: async () => {
			await topology.stop();
			await sandbox.close();
			await source.dispose();
		},
	};
}
