/** The benchmark's workflows and a lean way to run them in n8n and time them. */
import { randomUUID } from 'node:crypto';

import type { ExecutionStatus, IConnections, INode } from 'n8n-workflow';

import type { CredentialRef, WorkflowNodeInput, WorkflowRecord } from '../../harness/n8n/api';
import type { N8nInstance } from '../../harness/n8n/instance';
import { importWorkflow } from '../../harness/n8n/api';
import { waitForExecutionEnd, withFinalData } from '../../harness/n8n/executions';
import { FLOOR_NODE_TYPE } from './floor/build';

export type Sink = 'svc' | 'httpRequest' | 'floor' | 'floorNoRedirect' | 'none';

export interface WorkflowSpec {
	sink: Sink;
	count: number;
	credential: CredentialRef;
	/** Where the HTTP Request node posts (sandbox or counting proxy), without /v1. */
	httpBaseUrl: string;
	/** n8n's Retry On Fail on the sink, with its defaults (3 tries, 1000 ms apart). */
	retryOnFail?: boolean;
	/** The floor fixture's requests in flight (the Svc node's default). */
	concurrency: number;
}

export const TRIGGER = 'Start';
export const SINK = 'Upsert';

/** Email prefix of the items an execution generates: unique per execution, so runs never collide. */
export function emailPrefix(executionId: string): string {
	return `b${executionId}-`;
}

/**
 * Items without the Code node (it needs the task runner): a Set node builds an array by
 * expression, Split Out turns it into `count` items { email, first_name }.
 */
function sourceNodes(count: number): WorkflowNodeInput[] {
	const items = `={{ Array.from({ length: ${count} }, (_, i) => ({ email: 'b' + $execution.id + '-' + i + '@example.com', first_name: 'B' + i })) }}`;
	return [
		{ name: TRIGGER, type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
		{
			name: 'Make items',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			parameters: {
				mode: 'manual',
				assignments: {
					assignments: [{ id: randomUUID(), name: 'items', type: 'array', value: items }],
				},
				options: {},
			},
		},
		{
			name: 'Split',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			parameters: { fieldToSplitOut: 'items', include: 'noOtherFields', options: {} },
		},
	];
}

/**
 * A UUID-shaped Idempotency-Key per item, stable across n8n's Retry On Fail of the same
 * execution: the last 6 digits of the execution id, then the item index, as the last group.
 */
const HTTP_IDEMPOTENCY_KEY =
	"={{ '00000000-0000-4000-8000-' + String($execution.id).padStart(6, '0').slice(-6) + String($itemIndex).padStart(6, '0') }}";

function sinkNode(spec: WorkflowSpec): WorkflowNodeInput | undefined {
	const credentials: INode['credentials'] = {
		svcApi: { id: spec.credential.id, name: spec.credential.name },
	};
	const retry: Partial<INode> = spec.retryOnFail ? { retryOnFail: true } : {};
	switch (spec.sink) {
		case 'none':
			return undefined;
		case 'svc':
			return {
				name: SINK,
				type: 'n8n-nodes-svc.svc',
				typeVersion: 1,
				parameters: {
					resource: 'lead',
					operation: 'upsert',
					inputMode: 'mapAutomatically',
					options: {},
				},
				credentials,
				...retry,
			};
		case 'floor':
		case 'floorNoRedirect':
			return {
				name: SINK,
				type: FLOOR_NODE_TYPE,
				typeVersion: 1,
				parameters: {
					concurrency: spec.concurrency,
					disableFollowRedirect: spec.sink === 'floorNoRedirect',
				},
				credentials,
				...retry,
			};
		case 'httpRequest':
			return {
				name: SINK,
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				parameters: {
					method: 'POST',
					url: `${spec.httpBaseUrl}/v1/leads`,
					// The Svc API credential's own authenticate() adds the Bearer header.
					authentication: 'predefinedCredentialType',
					nodeCredentialType: 'svcApi',
					sendHeaders: true,
					specifyHeaders: 'keypair',
					headerParameters: {
						parameters: [{ name: 'Idempotency-Key', value: HTTP_IDEMPOTENCY_KEY }],
					},
					sendBody: true,
					contentType: 'json',
					specifyBody: 'json',
					jsonBody: '={{ $json }}',
					options: {},
				},
				credentials,
				...retry,
			};
	}
}

export async function importBenchWorkflow(
	n8n: N8nInstance,
	spec: WorkflowSpec,
	label: string,
): Promise<WorkflowRecord> {
	const nodes = sourceNodes(spec.count);
	const sink = sinkNode(spec);
	const connections: IConnections = {
		[TRIGGER]: { main: [[{ node: 'Make items', type: 'main', index: 0 }]] },
		'Make items': { main: [[{ node: 'Split', type: 'main', index: 0 }]] },
	};
	if (sink) {
		nodes.push(sink);
		connections.Split = { main: [[{ node: SINK, type: 'main', index: 0 }]] };
	}
	return await importWorkflow(n8n, {
		name: `bench: ${label}`,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
	});
}

export interface TimedExecution {
	id: string;
	status: ExecutionStatus;
	/** stoppedAt - startedAt as n8n recorded them: the engine's own time, no polling or saving. */
	engineMs: number;
	/** From the run request to seeing the execution finished (includes saving its data and polling). */
	wallMs: number;
	/** The failure n8n recorded, when the status is not success. */
	error?: string;
}

const UNFINISHED: ExecutionStatus[] = ['new', 'running', 'unknown', 'waiting'];

interface ExecutionRow {
	status: ExecutionStatus;
	startedAt: string;
	stoppedAt: string | null;
	data?: { resultData?: { error?: { message?: string; description?: string } } };
}

/** A row n8n has written the end of: the run's own time can be read from it. */
type EndedRow = ExecutionRow & { stoppedAt: string };

const ended = (row: ExecutionRow): row is EndedRow =>
	!UNFINISHED.includes(row.status) && Boolean(row.stoppedAt);

/**
 * Runs a workflow like the editor's Execute button and waits for it. Unlike executeWorkflow()
 * in harness/n8n/api.ts, it never reads the data of a run that succeeded (10,000 items are
 * megabytes), so waiting costs n8n little while it works.
 */
export async function runTimed(
	n8n: N8nInstance,
	workflow: WorkflowRecord,
	timeoutMs: number,
): Promise<TimedExecution> {
	const started = performance.now();
	const result = await n8n.rest<{ data: { executionId?: string } }>(
		'POST',
		`/workflows/${workflow.id}/run`,
		{
			workflowData: workflow,
			triggerToStartFrom: { name: TRIGGER },
		},
	);
	const executionId = result.body.data?.executionId;
	if (result.status !== 200 || executionId === undefined) {
		throw new Error(
			`POST /rest/workflows/${workflow.id}/run answered ${result.status}: ${JSON.stringify(result.body).slice(0, 500)}`,
		);
	}
	const id = String(executionId);
	// Quick at first (short runs), then gentler so polling does not compete with the run.
	const row = await waitForExecutionEnd(n8n, id, {
		timeoutMs,
		everyMs: (attempt) => (attempt < 20 ? 25 : 100),
		ended,
	});
	const wallMs = performance.now() - started;
	const engineMs = Date.parse(row.stoppedAt) - Date.parse(row.startedAt);
	const timed: TimedExecution = { id, status: row.status, engineMs, wallMs };
	if (row.status !== 'success') {
		const full = await withFinalData(n8n, id);
		const error = full.data?.resultData?.error;
		timed.error =
			[error?.message, error?.description].filter(Boolean).join(' | ') || 'no error recorded';
	}
	return timed;
}
