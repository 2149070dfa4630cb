/** n8n's REST and public API as the tests and tools use them: credentials, workflows, runs, test listens (executions: ./executions.ts). */
import { randomUUID } from 'node:crypto';
import type { IConnections, IDataObject, INode, IPinData, IWorkflowSettings } from 'n8n-workflow';
import type { HttpMethod } from '../http';
import { failedCall as fail } from '../http';
import type { ExecutionRecord } from './executions';
import {
	getExecution,
	isUnfinished,
	listExecutions,
	waitForExecutionEnd,
	withFinalData,
} from './executions';
import type { N8nInstance } from './instance';
import { until } from '../wait';

/** A call to n8n's REST API (the editor's): its `data`, or an error with n8n's answer unless 200. */
export async function restData<T>(
	n8n: N8nInstance,
	method: HttpMethod,
	path: string,
	body?: unknown,
	options?: { timeoutMs?: number },
): Promise<T> {
	const result = await n8n.rest<{ data: T }>(method, path, body, options);
	if (result.status !== 200) fail(`${method} /rest${path}`, result);
	return result.body.data;
}

export interface CredentialInput {
	/** 1–16 letters, digits, `_` or `-`; 2.x keeps it exactly, so workflow JSON can refer to it (1.x ignores it: importCredential then throws). */
	id?: string;
	name: string;
	type: string;
	data: IDataObject;
}

export interface CredentialRef {
	id: string;
	name: string;
	type: string;
}

/** Creates a credential through the public API (n8n encrypts `data`; the type's schema is validated). */
export async function importCredential(
	n8n: N8nInstance,
	credential: CredentialInput,
): Promise<CredentialRef> {
	const result = await n8n.api<CredentialRef>('POST', '/credentials', credential);
	if (result.status !== 200) fail(`POST /api/v1/credentials (${credential.type})`, result);
	if (credential.id !== undefined && result.body.id !== credential.id) {
		throw new Error(
			`n8n ${n8n.runtime.n8nVersion} ignored the credential id ${credential.id} (made ${result.body.id}): refer to the returned id`,
		);
	}
	return { id: result.body.id, name: result.body.name, type: result.body.type };
}

export type WorkflowNodeInput = Pick<INode, 'name' | 'type' | 'typeVersion' | 'parameters'> &
	Partial<Omit<INode, 'name' | 'type' | 'typeVersion' | 'parameters'>>;

export interface WorkflowInput {
	name: string;
	nodes: WorkflowNodeInput[];
	connections: IConnections;
	settings?: IWorkflowSettings;
	staticData?: IDataObject | string | null;
	pinData?: IPinData;
	/** Present in exported JSON; n8n assigns its own ids, so these are not sent. */
	id?: string;
	active?: boolean;
	tags?: unknown[];
	meta?: IDataObject;
	versionId?: string;
}

export interface WorkflowRecord {
	id: string;
	name: string;
	active: boolean;
	nodes: INode[];
	connections: IConnections;
	settings: IWorkflowSettings;
	versionId: string;
	staticData?: IDataObject | null;
}

/** Creates a workflow through the public API; returns it with n8n's id (exported ids are not kept). */
export async function importWorkflow(
	n8n: N8nInstance,
	workflow: WorkflowInput,
): Promise<WorkflowRecord> {
	const body = {
		name: workflow.name,
		// Node ids are required by the engine; exported JSON usually has them, hand-written often not.
		nodes: workflow.nodes.map((node) => ({ id: randomUUID(), position: [0, 0], ...node })),
		connections: workflow.connections,
		settings: workflow.settings ?? {},
		...(workflow.staticData !== undefined ? { staticData: workflow.staticData } : {}),
		...(workflow.pinData !== undefined ? { pinData: workflow.pinData } : {}),
	};
	const result = await n8n.api<WorkflowRecord>('POST', '/workflows', body);
	if (result.status !== 200) fail(`POST /api/v1/workflows (${workflow.name})`, result);
	return result.body;
}

export async function getWorkflow(n8n: N8nInstance, workflowId: string): Promise<WorkflowRecord> {
	const result = await n8n.api<WorkflowRecord>('GET', `/workflows/${workflowId}`);
	if (result.status !== 200) fail(`GET /api/v1/workflows/${workflowId}`, result);
	return result.body;
}

/** Activates (publishes) a workflow; a trigger whose create() throws makes this throw with n8n's message. */
export async function activate(n8n: N8nInstance, workflowId: string): Promise<WorkflowRecord> {
	const result = await n8n.api<WorkflowRecord>('POST', `/workflows/${workflowId}/activate`);
	if (result.status !== 200) fail(`POST /api/v1/workflows/${workflowId}/activate`, result);
	const failed = await publicationSettled(n8n, workflowId);
	if (failed.length > 0)
		throw new Error(`Publishing workflow ${workflowId} failed: ${failed.join('; ')}`);
	return result.body;
}

export async function deactivate(n8n: N8nInstance, workflowId: string): Promise<WorkflowRecord> {
	const result = await n8n.api<WorkflowRecord>('POST', `/workflows/${workflowId}/deactivate`);
	if (result.status !== 200) fail(`POST /api/v1/workflows/${workflowId}/deactivate`, result);
	await publicationSettled(n8n, workflowId);
	return result.body;
}

interface PublicationStatus {
	status: 'in_progress' | 'not_published' | 'published' | 'partial' | 'failed';
	triggers: Array<{ nodeId: string; status: string; errorMessage?: string | null }>;
}

/**
 * n8n 2.41 with N8N_USE_WORKFLOW_PUBLICATION_SERVICE answers a publish or an unpublish before its
 * triggers are started or stopped (a queue of its own works them off): waits until that is done,
 * and returns the messages of the triggers that failed to start. Without that service nothing is
 * ever in progress, and n8n 1.x has no such status: both return at once.
 */
async function publicationSettled(n8n: N8nInstance, workflowId: string): Promise<string[]> {
	let settled: PublicationStatus | undefined;
	await until(
		`workflow ${workflowId}'s publication to settle`,
		async () => {
			const result = await n8n.rest<{ data: PublicationStatus }>(
				'GET',
				`/workflows/${workflowId}/publication-status`,
			);
			if (result.status === 404) return true;
			if (result.status !== 200)
				fail(`GET /rest/workflows/${workflowId}/publication-status`, result);
			settled = result.body.data;
			return settled.status !== 'in_progress';
		},
		// Starting a trigger includes its test poll (up to 5 s here), on a machine that may be busy.
		{ timeoutMs: 90_000 },
	);
	return (settled?.triggers ?? [])
		.filter((trigger) => trigger.status === 'failed')
		.map((trigger) => trigger.errorMessage ?? `trigger ${trigger.nodeId} failed`);
}

/**
 * Runs a workflow as the editor's "Execute workflow" button does (REST POST /rest/workflows/:id/run,
 * starting from its Manual Trigger or `triggerNode`), waits for it and returns it with its data.
 */
export async function executeWorkflow(
	n8n: N8nInstance,
	workflowId: string,
	options: { triggerNode?: string; timeoutMs?: number } = {},
): Promise<ExecutionRecord> {
	const workflow = await getWorkflow(n8n, workflowId);
	const triggerNode =
		options.triggerNode ??
		workflow.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger')?.name;
	if (!triggerNode)
		throw new Error(`Workflow ${workflowId} has no Manual Trigger: pass options.triggerNode`);
	// 2.x runs the stored workflow and ignores workflowData; 1.x requires it.
	const { executionId, waitingForWebhook } = await restData<{
		executionId?: string;
		waitingForWebhook?: boolean;
	}>(n8n, 'POST', `/workflows/${workflowId}/run`, {
		workflowData: workflow,
		triggerToStartFrom: { name: triggerNode },
	});
	if (!executionId)
		throw new Error(
			`Workflow ${workflowId} did not start (waitingForWebhook: ${String(waitingForWebhook)}): start it from a non-webhook trigger`,
		);
	const id = String(executionId);
	await waitForExecutionEnd(n8n, id, {
		timeoutMs: options.timeoutMs ?? 30_000,
		everyMs: 50,
		ended: (row: ExecutionRecord): row is ExecutionRecord => !isUnfinished(row),
	});
	return await withFinalData(n8n, id);
}

/**
 * Opens the editor's "Listen for test event" on a webhook trigger: the same REST call the
 * editor makes (POST /rest/workflows/:id/run from that trigger), which registers the trigger's
 * test webhook and answers `waitingForWebhook` instead of running.
 */
export async function startTestListen(
	n8n: N8nInstance,
	workflowId: string,
	triggerNode: string,
): Promise<void> {
	const workflow = await getWorkflow(n8n, workflowId);
	const started = await restData<{ waitingForWebhook?: boolean }>(
		n8n,
		'POST',
		`/workflows/${workflowId}/run`,
		{ workflowData: workflow, triggerToStartFrom: { name: triggerNode } },
	);
	if (started.waitingForWebhook !== true)
		throw new Error(
			`Workflow ${workflowId}: "${triggerNode}" did not start listening (${JSON.stringify(started)})`,
		);
}

/**
 * n8n's Retry of an execution, as a person does it from the executions list (with the stored
 * workflow), done once n8n answers or once the retried run is seen ended, whichever comes first.
 * n8n answers when the retried run has ended, which on a busy n8n took longer than the 30 s other
 * calls get; n8n 1.123 in queue mode at times never answers a Retry whose run a worker ended (seen
 * in CI, 2026-12-02). Such a run stays among main's active executions, which n8n's public list
 * leaves out, so a success is read where the worker writes it: the original's `retrySuccessId`.
 */
export async function retryExecution(n8n: N8nInstance, executionId: string): Promise<void> {
	const { workflowId } = await getExecution(n8n, executionId, false);
	let answered = false;
	const answer = restData(
		n8n,
		'POST',
		`/executions/${executionId}/retry`,
		{ loadWorkflow: false },
		{ timeoutMs: 180_000 },
	).finally(() => (answered = true));
	const seenEnded = until(
		`the Retry of execution ${executionId} seen ended`,
		async () =>
			answered ||
			Boolean((await getExecution(n8n, executionId, false)).retrySuccessId) ||
			(await listExecutions(n8n, workflowId)).some(
				(execution) => execution.retryOf === executionId && !isUnfinished(execution),
			),
		{ timeoutMs: 180_000, everyMs: 1_000 },
	);
	// Whichever ends second no longer matters, a late timeout included.
	for (const pending of [answer, seenEnded]) pending.catch(() => undefined);
	await Promise.race([answer, seenEnded]);
}

/** n8n's Stop of an execution, as a person does it from the executions list: a run no process runs ends `canceled`. */
export async function stopExecution(n8n: N8nInstance, executionId: string): Promise<void> {
	await restData(n8n, 'POST', `/executions/${executionId}/stop`);
}

/** The editor's "Stop listening": n8n removes the workflow's test webhooks. */
export async function stopTestListen(n8n: N8nInstance, workflowId: string): Promise<void> {
	const result = await n8n.rest('DELETE', `/test-webhook/${workflowId}`);
	if (result.status !== 200) fail(`DELETE /rest/test-webhook/${workflowId}`, result);
}

/** Replaces a stored credential's data, as saving it in the editor does (PATCH /rest/credentials/:id). */
export async function updateCredential(
	n8n: N8nInstance,
	credential: CredentialRef,
	data: IDataObject,
): Promise<void> {
	const result = await n8n.rest('PATCH', `/credentials/${credential.id}`, {
		name: credential.name,
		type: credential.type,
		data,
	});
	if (result.status !== 200) fail(`PATCH /rest/credentials/${credential.id}`, result);
}

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

/**
 * Runs n8n's own credential test (the type's `test` request or a node's credentialTest method)
 * the way the editor's "Test" button does: GET /rest/credentials/:id?includeData=true, then
 * POST /rest/credentials/test with that (redacted) data, which n8n completes from the stored
 * secrets. Unsaved data is stored as a temporary credential, tested, and deleted.
 */
export async function testCredential(
	n8n: N8nInstance,
	target: string | (Omit<CredentialInput, 'id' | 'name'> & { name?: string }),
): Promise<CredentialTestResult> {
	if (typeof target === 'string') {
		const { id, name, type, data } = await restData<CredentialRef & { data: IDataObject }>(
			n8n,
			'GET',
			`/credentials/${target}?includeData=true`,
		);
		return await restData<CredentialTestResult>(n8n, 'POST', '/credentials/test', {
			credentials: { id, name, type, data },
		});
	}
	const temporary = await importCredential(n8n, {
		name: target.name ?? `credential test ${randomUUID()}`,
		type: target.type,
		data: target.data,
	});
	try {
		return await testCredential(n8n, temporary.id);
	} finally {
		await n8n.api('DELETE', `/credentials/${temporary.id}`);
	}
}
