/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * How an n8n under test gets the package, for a single n8n (environment.ts) and for a queue-mode
 * topology (queue-environment.ts) alike: the packed build extracted into every process's user
 * folder, or, with `installFrom`, n8n's own community-package installer fetching it from that
 * registry, as a user installs it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { LocalCa } from './local-ca';
import { makeLocalCa } from './local-ca';
import type { InstalledPackage } from './n8n/community-packages';
import { installCommunityPackage } from './n8n/community-packages';
import type { N8nInstance } from './n8n/instance';
import type { LocalRegistry } from './npm-registry';
import { packedTarball } from './pack';
import { PACKAGE_NAME, PACKAGE_NODE_TYPES } from './project';

export interface PackageSource {
	/** The CA that n8n and the sandbox trust: the registry's when there is one, so n8n trusts its certificate too. */
	tls: LocalCa;
	/** What n8n's processes start with: the tarball to extract, the node types to wait for, the registry's variables. */
	start: { packageTarball?: string; expectNodeTypes: string[]; env: Record<string, string> };
	/** Once n8n's main is up: the installer's answer with `installFrom`, nothing without. */
	install(main: N8nInstance): Promise<InstalledPackage | undefined>;
	/** Removes the CA made for it. */
	dispose(): Promise<void>;
}

/** Install the package through n8n's installer, as `version` from `registry`. */
export interface InstallFrom {
	registry: LocalRegistry;
	version: string;
}

export async function packageSource(installFrom?: InstallFrom): Promise<PackageSource> {
	if (installFrom) {
		const { registry, version } = installFrom;
		return {
			tls: registry.ca,
			start: { expectNodeTypes: [], env: registry.env() },
			install: async (main) => await installCommunityPackage(main, PACKAGE_NAME, version),
			dispose: () => Promise.resolve(),
		};
	}
	const tlsDir = await mkdtemp(join(tmpdir(), 'svc-tls-'));
	return {
		tls: await makeLocalCa(tlsDir),
		start: {
			packageTarball: await packedTarball(),
			expectNodeTypes: PACKAGE_NODE_TYPES,
			env: {},
		},
		install: () => Promise.resolve(undefined),
		dispose: async () => await rm(tlsDir, { recursive: true, force: true }),
	};
}
