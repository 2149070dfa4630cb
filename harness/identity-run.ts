/**
 * The smallest proof that an installed package works with its credential: Manual Trigger → Svc
 * (Account → Get Current Identity), run as the editor's Execute workflow does.
 */
import type { CredentialRef } from './n8n/api';
import type { ExecutionRecord } from './n8n/executions';
import { executeWorkflow, importWorkflow } from './n8n/api';
import type { N8nInstance } from './n8n/instance';
import { SVC_NODE_TYPE } from './project';

/** The node that asks for the identity; its output is the service's GET /v1/me. */
export const IDENTITY_NODE = 'Me';

/** Imports the workflow and runs it; returns the ended execution with its data. */
export async function runIdentity(
	n8n: N8nInstance,
	credential: CredentialRef,
	timeoutMs = 60_000,
): Promise<ExecutionRecord> {
	const stored = await importWorkflow(n8n, {
		name: 'Svc: who am I',
		nodes: [
			{ name: 'Run', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
			{
				name: IDENTITY_NODE,
				type: SVC_NODE_TYPE,
				typeVersion: 1,
				parameters: { resource: 'account', operation: 'getMe' },
				credentials: { svcApi: { id: credential.id, name: credential.name } },
			},
		],
		connections: { Run: { main: [[{ node: IDENTITY_NODE, type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	});
	return await executeWorkflow(n8n, stored.id, { timeoutMs });
}
