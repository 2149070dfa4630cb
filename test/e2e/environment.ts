import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import { DEMO_KEYS, startSandbox } from '../../sandbox';
import type { CredentialRef, ExecutionRecord, LocalCa, N8nInstance } from '../../scripts/lib/n8n';
import { importCredential, makeLocalCa, startN8n } from '../../scripts/lib/n8n';
import { ensureN8nRuntime } from '../../scripts/n8n-runtime/install';
import type { RuntimeVersion } from '../../scripts/n8n-runtime/install';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');

export const FULL_KEY = DEMO_KEYS[0].key;
export const NO_SENSITIVE_KEY = DEMO_KEYS[2].key;
/** The id the example workflows use for their credential. */
export const SANDBOX_CREDENTIAL_ID = 'svcSandbox';

/** `npm pack` of the built package, as users install it. Built once per test process. */
let packed: Promise<string> | undefined;
export function packedTarball(): Promise<string> {
	packed ??= (async () => {
		const dir = join(ROOT, '.tmp', 'pack');
		await rm(dir, { recursive: true, force: true });
		await mkdir(dir, { recursive: true });
		await run('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: ROOT });
		const [file] = (await readdir(dir)).filter((name) => name.endsWith('.tgz'));
		return join(dir, file);
	})();
	return packed;
}

export interface Environment {
	n8n: N8nInstance;
	sandbox: Sandbox;
	tls: LocalCa;
	credential: CredentialRef;
	stop(): Promise<void>;
}

/** The sandbox and a real n8n over https with the packed package and a "Svc sandbox" credential. */
export async function startEnvironment(options: { version?: RuntimeVersion; protocol?: 'https' | 'http' } = {}): Promise<Environment> {
	const runtime = await ensureN8nRuntime(options.version ?? 'v2');
	const tlsDir = await mkdtemp(join(tmpdir(), 'svc-e2e-tls-'));
	const tls = await makeLocalCa(tlsDir);
	const sandbox = await startSandbox({ allowLoopbackWebhooks: true, trustedCa: tls.caPem, maxPageSize: 5, delivery: { timeoutMs: 5000, retryDelaysMs: [200, 500] } });
	let n8n: N8nInstance;
	try {
		n8n = await startN8n({
			runtime,
			packageTarball: await packedTarball(),
			protocol: options.protocol ?? 'https',
			tls,
			logLevel: 'debug',
			expectNodeTypes: ['n8n-nodes-svc.svc', 'n8n-nodes-svc.svcTrigger'],
		});
	} catch (error) {
		await sandbox.close();
		throw error;
	}
	const credential = await importCredential(n8n, { id: SANDBOX_CREDENTIAL_ID, name: 'Svc sandbox', type: 'svcApi', data: { apiKey: FULL_KEY, baseUrl: sandbox.url } });
	return {
		n8n,
		sandbox,
		tls,
		credential,
		async stop() {
			await n8n.stop();
			await sandbox.close();
			await rm(tlsDir, { recursive: true, force: true });
		},
	};
}

/** Items a node produced in an execution fetched with its data. */
export function nodeOutput(execution: ExecutionRecord, nodeName: string): INodeExecutionData[] {
	const tasks = execution.data?.resultData.runData[nodeName];
	return tasks?.[tasks.length - 1]?.data?.main[0] ?? [];
}

export function nodeError(execution: ExecutionRecord, nodeName: string): IDataObject | undefined {
	const tasks = execution.data?.resultData.runData[nodeName];
	return tasks?.[tasks.length - 1]?.error as IDataObject | undefined;
}
