/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- tooling that runs in Node.js beside n8n, never inside it */
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
import type { InstalledPackage } from './n8n/community-packages';
import { installCommunityPackage } from './n8n/community-packages';
import type { LocalRegistry } from './npm-registry';
import type { QueueTopology } from './n8n/queue';
import { startQueueTopology } from './n8n/queue';
import type { RuntimeVersion } from './n8n-runtime/install';
import { packedTarball } from './pack';
import { PACKAGE_NAME, PACKAGE_NODE_TYPES } from './project';

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
		installFrom?: { registry: LocalRegistry; version: string };
	} = {},
): Promise<QueueEnvironment> {
	const { installFrom } = options;
	// With a registry, the CA n8n trusts is the registry's, so n8n trusts its certificate too.
	const tlsDir = installFrom ? undefined : await mkdtemp(join(tmpdir(), 'svc-queue-tls-'));
	const tls = installFrom?.registry.ca ?? (await makeLocalCa(tlsDir as string));
	const sandbox = await startSandbox({
		allowLoopbackWebhooks: true,
		trustedCa: tls.caPem,
		delivery: { timeoutMs: 5000, retryDelaysMs: [200, 500] },
	});
	const started = Date.now();
	const topology = await startQueueTopology({
		version,
		packageTarball: installFrom ? undefined : await packedTarball(),
		tls,
		workers: options.workers ?? 2,
		webhookProcessors: options.webhookProcessors ?? 2,
		expectNodeTypes: installFrom ? [] : PACKAGE_NODE_TYPES,
		env: installFrom?.registry.env(),
	});
	const startSeconds = Math.round((Date.now() - started) / 100) / 10;
	let installed: InstalledPackage | undefined;
	let credential: CredentialRef;
	try {
		if (installFrom)
			installed = await installCommunityPackage(topology.main, PACKAGE_NAME, installFrom.version);
		credential = await importCredential(topology.main, sandboxCredential(version, sandbox.url));
	} catch (error) {
		await topology.stop();
		await sandbox.close();
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
			if (tlsDir) await rm(tlsDir, { recursive: true, force: true });
		},
	};
}
