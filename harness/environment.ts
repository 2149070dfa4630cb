import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Sandbox } from '../sandbox';
import { DEMO_KEYS, startSandbox } from '../sandbox';
import type { CredentialRef, ExecutionRecord, WorkflowInput } from './n8n/api';
import type { LocalCa } from './local-ca';
import type { N8nInstance } from './n8n/instance';
import { importCredential } from './n8n/api';
import { makeLocalCa } from './local-ca';
import { startN8n } from './n8n/process';
import { ensureN8nRuntime } from './n8n-runtime/install';
import { packTarball } from './pack';
import { PEER_EXAMPLE_ENV } from './peer-example';
import { EXAMPLES_DIR, PACKAGE_NODE_TYPES, TMP_DIR } from './project';
import type { RuntimeVersion } from './n8n-runtime/install';

export const FULL_KEY = DEMO_KEYS[0].key;
export const NO_SENSITIVE_KEY = DEMO_KEYS[2].key;
/** The id the example workflows use for their credential. */
export const SANDBOX_CREDENTIAL_ID = 'svcSandbox';

const RUNTIME_VERSIONS: readonly RuntimeVersion[] = ['v1', 'v2'];

/**
 * The n8n runtimes a suite runs on, from the environment variable `variable`: `all` (default: both),
 * `v1`, `v2`, or a comma list such as `v1,v2` (run one after the other, each with its own n8n and
 * sandbox). A wrong value names the variable it came from.
 */
export function runtimeVersions(
	variable: 'SVC_E2E_N8N' | 'SVC_QUEUE_N8N',
	env: NodeJS.ProcessEnv = process.env,
): RuntimeVersion[] {
	const value = env[variable];
	const wanted = (value ?? '').trim().toLowerCase();
	if (wanted === '' || wanted === 'all') return [...RUNTIME_VERSIONS];
	const versions = wanted.split(',').map((part) => part.trim());
	const unknown = versions.filter(
		(version) => !RUNTIME_VERSIONS.includes(version as RuntimeVersion),
	);
	if (unknown.length > 0)
		throw new Error(
			`${variable}=${value}: unknown n8n runtime ${unknown.join(', ')} (use v1, v2, all or a comma list)`,
		);
	return [...new Set(versions as RuntimeVersion[])];
}

/** `npm pack` of the built package, as users install it. Built once per test process. */
let packed: Promise<string> | undefined;
export function packedTarball(): Promise<string> {
	packed ??= packTarball(join(TMP_DIR, 'pack'));
	return packed;
}

export interface Environment {
	n8n: N8nInstance;
	sandbox: Sandbox;
	tls: LocalCa;
	/** The "Svc sandbox" credential: id `svcSandbox` on 2.x; on 1.x an id n8n chose (it ignores a given one). */
	credential: CredentialRef;
	/** Credential `data` this n8n's public API accepts (see credentialData). */
	credentialData(data: IDataObject): IDataObject;
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

/** The sandbox and a real n8n over https with the packed package and a "Svc sandbox" credential. */
export async function startEnvironment(
	options: { version?: RuntimeVersion; protocol?: 'https' | 'http'; ui?: boolean } = {},
): Promise<Environment> {
	const runtime = await ensureN8nRuntime(options.version ?? 'v2');
	const tlsDir = await mkdtemp(join(tmpdir(), 'svc-e2e-tls-'));
	const tls = await makeLocalCa(tlsDir);
	const sandbox = await startSandbox({
		allowLoopbackWebhooks: true,
		trustedCa: tls.caPem,
		maxPageSize: 5,
		delivery: { timeoutMs: 5000, retryDelaysMs: [200, 500] },
	});
	let n8n: N8nInstance;
	try {
		n8n = await startN8n({
			runtime,
			packageTarball: await packedTarball(),
			protocol: options.protocol ?? 'https',
			// Only the editor suite needs the UI; without it n8n skips copying the editor's files.
			ui: options.ui,
			tls,
			logLevel: 'debug',
			expectNodeTypes: PACKAGE_NODE_TYPES,
			env: PEER_EXAMPLE_ENV,
		});
	} catch (error) {
		await sandbox.close();
		throw error;
	}
	let credential: CredentialRef;
	try {
		// 1.x ignores a given credential id (importCredential would throw): workflows get the one it made, see withCredential.
		const id = runtime.version === 'v1' ? undefined : SANDBOX_CREDENTIAL_ID;
		credential = await importCredential(n8n, {
			id,
			name: 'Svc sandbox',
			type: 'svcApi',
			data: credentialData(runtime.version, { apiKey: FULL_KEY, baseUrl: sandbox.url }),
		});
	} catch (error) {
		await n8n.stop();
		await sandbox.close();
		throw error;
	}
	const environment: Environment = {
		n8n,
		sandbox,
		tls,
		credential,
		credentialData: (data) => credentialData(runtime.version, data),
		async stop() {
			// The instance in use: a test may have replaced it with a restarted one.
			await environment.n8n.stop();
			await sandbox.close();
			await rm(tlsDir, { recursive: true, force: true });
		},
	};
	return environment;
}

/**
 * The workflow with every reference to the example credential id (`svcSandbox`) pointed at
 * `credential`: the same workflow on 2.x, the id n8n made on 1.x.
 */
export function withCredential(
	workflow: WorkflowInput,
	credential: CredentialRef,
	exampleId = SANDBOX_CREDENTIAL_ID,
): WorkflowInput {
	return {
		...workflow,
		nodes: workflow.nodes.map((node) => {
			if (!node.credentials) return node;
			const credentials = Object.fromEntries(
				Object.entries(node.credentials).map(([type, ref]) => [
					type,
					ref.id === exampleId ? { id: credential.id, name: credential.name } : ref,
				]),
			);
			return { ...node, credentials };
		}),
	};
}

/** An example workflow as shipped, its credential references pointed at `credential`. */
export function loadExample(file: string, credential: CredentialRef): WorkflowInput {
	const workflow = JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as WorkflowInput;
	return withCredential(workflow, credential);
}

/** The items a node's last run put on one output of an execution fetched with its data (output 0 unless told; 1 is an error output). */
export function nodeOutput(
	execution: ExecutionRecord,
	nodeName: string,
	output = 0,
): INodeExecutionData[] {
	const tasks = execution.data?.resultData.runData[nodeName];
	return tasks?.[tasks.length - 1]?.data?.main[output] ?? [];
}

export function nodeError(execution: ExecutionRecord, nodeName: string): IDataObject | undefined {
	const tasks = execution.data?.resultData.runData[nodeName];
	return tasks?.[tasks.length - 1]?.error as IDataObject | undefined;
}
