/* eslint-disable @n8n/community-nodes/require-node-api-error -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * The sandbox and a real n8n with the packed package and a "Svc sandbox" credential, as the e2e,
 * queue and editor suites use them.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../sandbox';
import { DEMO_KEYS, startSandbox } from '../sandbox';
import { SANDBOX_CREDENTIAL_ID } from './example-workflows';
import type { LocalCa } from './local-ca';
import type { CredentialInput, CredentialRef } from './n8n/api';
import { importCredential } from './n8n/api';
import type { InstalledPackage } from './n8n/community-packages';
import type { N8nInstance } from './n8n/instance';
import { startN8n } from './n8n/process';
import { attachSharedN8n } from './n8n/shared';
import type { N8nRuntime, RuntimeVersion } from './n8n-runtime/install';
import { ensureN8nRuntime } from './n8n-runtime/install';
import type { InstallFrom, PackageSource } from './package-source';
import { packageSource } from './package-source';
import { PEER_EXAMPLE_ENV } from './peer-example';

export const FULL_KEY = DEMO_KEYS[0].key;
export const NO_SENSITIVE_KEY = DEMO_KEYS[2].key;

export interface Environment {
	n8n: N8nInstance;
	sandbox: Sandbox;
	tls: LocalCa;
	/** The "Svc sandbox" credential: id `svcSandbox` on 2.x; on 1.x an id n8n chose (it ignores a given one). */
	credential: CredentialRef;
	/** Credential `data` this n8n's public API accepts (see credentialData). */
	credentialData(data: IDataObject): IDataObject;
	/** What n8n's installer answered, when the package came through it (`installFrom`). */
	installed?: InstalledPackage;
	stop(): Promise<void>;
}

/**
 * Credential `data` as the public API of `version` accepts it. 1.x adds "Allowed HTTP Request
 * Domains" fields to every credential type with `authenticate`, and its POST /api/v1/credentials
 * schema then requires `allowedDomains` unless `allowedHttpRequestDomains` is given and not
 * 'domains' (a JSON-schema `if` on an absent property holds); 'all' is the editor's default.
 * 2.x has no such fields and refuses unknown ones.
 */
export function credentialData(version: RuntimeVersion, data: IDataObject): IDataObject {
	return version === 'v1' ? { allowedHttpRequestDomains: 'all', ...data } : data;
}

/**
 * The "Svc sandbox" credential for the sandbox at `baseUrl`, as n8n `version` takes it: id
 * `svcSandbox` on 2.x unless `anyId` (an n8n several files share holds one per file); 1.x ignores
 * a given id (importCredential would throw), so workflows get the one it made (see withCredential).
 */
export function sandboxCredential(
	version: RuntimeVersion,
	baseUrl: string,
	apiKey = FULL_KEY,
	anyId = false,
): CredentialInput {
	return {
		...(version === 'v1' || anyId ? {} : { id: SANDBOX_CREDENTIAL_ID }),
		name: 'Svc sandbox',
		type: 'svcApi',
		data: credentialData(version, { apiKey, baseUrl }),
	};
}

export interface EnvironmentOptions {
	version?: RuntimeVersion;
	/**
	 * Attach to the n8n this jest run's end-to-end files share (harness/n8n/shared.ts) instead of
	 * starting one: for a file that needs none of the settings below, no restart and no kill.
	 */
	shared?: boolean;
	protocol?: 'https' | 'http';
	ui?: boolean;
	installFrom?: InstallFrom;
	/** How the sandbox retries deliveries (default: 5 s timeout, retries after 200 and 500 ms). */
	delivery?: { timeoutMs?: number; retryDelaysMs?: number[] };
	/** n8n's own settings, beside the harness's. */
	n8nEnv?: Record<string, string>;
}

/**
 * The sandbox and a real n8n over https with the package and a "Svc sandbox" credential. The
 * package is the packed build extracted into n8n's nodes folder, or with `installFrom` installed
 * by n8n's own community-package installer from that registry, as a user installs it.
 */
export async function startEnvironment(options: EnvironmentOptions = {}): Promise<Environment> {
	const version = options.version ?? 'v2';
	if (options.shared) {
		const own = (['protocol', 'ui', 'installFrom', 'n8nEnv'] as const).filter(
			(key) => options[key] !== undefined,
		);
		if (own.length > 0)
			throw new Error(
				`A shared n8n has the default settings: ${own.join(', ')} need one of their own`,
			);
		const { n8n, tls } = await attachSharedN8n(version);
		return await besideSandbox({ n8n, tls, version, shared: true }, options, async () => {});
	}
	const runtime = await ensureN8nRuntime(version);
	const source = await packageSource(options.installFrom);
	let n8n: N8nInstance | undefined;
	let installed: InstalledPackage | undefined;
	try {
		n8n = await startEnvironmentN8n(runtime, source, options);
		installed = await source.install(n8n);
	} catch (error) {
		await n8n?.stop();
		await source.dispose();
		throw error;
	}
	return await besideSandbox(
		{ n8n, tls: source.tls, version, shared: false, installed },
		options,
		async () => await source.dispose(),
	);
}

/** n8n as startEnvironment starts it, the package from `source`: jest's shared n8n starts so too. */
export async function startEnvironmentN8n(
	runtime: N8nRuntime,
	source: PackageSource,
	options: Pick<EnvironmentOptions, 'protocol' | 'ui' | 'n8nEnv'> = {},
): Promise<N8nInstance> {
	return await startN8n({
		runtime,
		packageTarball: source.start.packageTarball,
		protocol: options.protocol ?? 'https',
		// Only the editor suite needs the UI; without it n8n skips copying the editor's files.
		ui: options.ui,
		tls: source.tls,
		logLevel: 'debug',
		expectNodeTypes: source.start.expectNodeTypes,
		env: { ...PEER_EXAMPLE_ENV, ...source.start.env, ...options.n8nEnv },
	});
}

/** A sandbox of the file's own beside `n8n`, and its credential there. `release`: after both stop. */
async function besideSandbox(
	base: {
		n8n: N8nInstance;
		tls: LocalCa;
		version: RuntimeVersion;
		shared: boolean;
		installed?: InstalledPackage;
	},
	options: Pick<EnvironmentOptions, 'delivery'>,
	release: () => Promise<void>,
): Promise<Environment> {
	const { n8n, tls, version } = base;
	let sandbox: Sandbox | undefined;
	let credential: CredentialRef;
	try {
		sandbox = await startSandbox({
			allowLoopbackWebhooks: true,
			trustedCa: tls.caPem,
			maxPageSize: 5,
			delivery: { timeoutMs: 5000, retryDelaysMs: [200, 500], ...options.delivery },
		});
		credential = await importCredential(
			n8n,
			sandboxCredential(version, sandbox.url, FULL_KEY, base.shared),
		);
	} catch (error) {
		await n8n.stop();
		await sandbox?.close();
		await release();
		throw error;
	}
	const environment: Environment = {
		n8n,
		sandbox,
		tls,
		credential,
		credentialData: (data) => credentialData(version, data),
		installed: base.installed,
		async stop() {
			// The instance in use: a test may have replaced it with a restarted one.
			await environment.n8n.stop();
			await sandbox.close();
			await release();
		},
	};
	return environment;
}
