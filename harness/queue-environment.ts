/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * What the queue-mode suites run against: the sandbox, and n8n in queue mode (PostgreSQL, Redis,
 * a main, workers and webhook processors) with the packed package and a Svc credential for the
 * sandbox, all over https on loopback.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Sandbox } from '../sandbox';
import { startSandbox } from '../sandbox';
import { sandboxCredential } from './environment';
import { makeLocalCa } from './local-ca';
import type { LocalCa } from './local-ca';
import type { CredentialRef } from './n8n/api';
import { importCredential } from './n8n/api';
import type { QueueTopology } from './n8n/queue';
import { startQueueTopology } from './n8n/queue';
import type { RuntimeVersion } from './n8n-runtime/install';
import { packedTarball } from './pack';
import { PACKAGE_NODE_TYPES } from './project';

export interface QueueEnvironment {
	topology: QueueTopology;
	sandbox: Sandbox;
	tls: LocalCa;
	/** The full-scope Svc credential for the sandbox, as the main stored it. */
	credential: CredentialRef;
	/** Seconds from starting PostgreSQL until every n8n process answered. */
	startSeconds: number;
	stop(): Promise<void>;
}

export async function startQueueEnvironment(
	version: RuntimeVersion,
	options: { workers?: number; webhookProcessors?: number } = {},
): Promise<QueueEnvironment> {
	const tlsDir = await mkdtemp(join(tmpdir(), 'svc-queue-tls-'));
	const tls = await makeLocalCa(tlsDir);
	const sandbox = await startSandbox({
		allowLoopbackWebhooks: true,
		trustedCa: tls.caPem,
		delivery: { timeoutMs: 5000, retryDelaysMs: [200, 500] },
	});
	const started = Date.now();
	const topology = await startQueueTopology({
		version,
		packageTarball: await packedTarball(),
		tls,
		workers: options.workers ?? 2,
		webhookProcessors: options.webhookProcessors ?? 2,
		expectNodeTypes: PACKAGE_NODE_TYPES,
	});
	const startSeconds = Math.round((Date.now() - started) / 100) / 10;
	const credential = await importCredential(topology.main, sandboxCredential(version, sandbox.url));
	return {
		topology,
		sandbox,
		tls,
		credential,
		startSeconds,
		stop: async () => {
			await topology.stop();
			await sandbox.close();
			await rm(tlsDir, { recursive: true, force: true });
		},
	};
}
