/**
 * The receivers the crash test kills n8n under: each a workflow whose receiver passes every event
 * on to a node that reports it to the sandbox, so the service's side counts what ran past it.
 */
import type { CredentialRef, WorkflowInput, WorkflowRecord } from './n8n/api';
import { activate, deactivate, importWorkflow } from './n8n/api';
import type { ExecutionRecord } from './n8n/executions';
import type { N8nInstance } from './n8n/instance';
import { SANDBOX_CREDENTIAL_ID, withCredential } from './example-workflows';
import { SVC_PULL_TRIGGER_TYPE } from './project';
import { createSubscription } from '../sandbox/operations';
import type { SandboxState } from '../sandbox/state';
import { poll } from './wait';

/** An event id as the service makes them. */
export const EVENT_ID = /evt_[0-9a-f]{16}/g;

/** Where the node after the receiver reports each event that ran past it: the sandbox records the request. */
const RAN_PATH = '/__ran';

/**
 * The receiver (or several, each into the same node), then a node that posts every item it passes
 * on to the sandbox: the service's side counts what ran past it, which a kill cannot tear as it
 * can n8n's own record of a run (n8n 1.x writes an execution's status and its data in two
 * statements). With `workSeconds`, a Wait node between them stands for the work a real workflow
 * does after its trigger: a kill then finds runs that claimed their events and have not run them.
 */
export function receiverWorkflow(
	name: string,
	receiver: WorkflowInput['nodes'][number] | Array<WorkflowInput['nodes'][number]>,
	sandboxUrl: string,
	{ workSeconds }: { workSeconds?: number } = {},
): WorkflowInput {
	const receivers = Array.isArray(receiver) ? receiver : [receiver];
	const work: WorkflowInput['nodes'] =
		workSeconds === undefined
			? []
			: [
					{
						name: 'Work',
						type: 'n8n-nodes-base.wait',
						typeVersion: 1.1,
						position: [240, 0],
						parameters: { resume: 'timeInterval', amount: workSeconds, unit: 'seconds' },
					},
				];
	const next = (node: string) => ({ main: [[{ node, type: 'main' as const, index: 0 }]] });
	return {
		name,
		nodes: [
			...receivers.map((node, index) => ({
				...node,
				position: [0, index * 200] as [number, number],
			})),
			...work,
			{
				name: 'Ran',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [240 * (work.length + 1), 0],
				parameters: {
					method: 'POST',
					// The execution in the query: a run repeated by n8n's Retry shows as such.
					url: `=${sandboxUrl}${RAN_PATH}?execution={{ $execution.id }}`,
					sendBody: true,
					specifyBody: 'json',
					jsonBody: '={{ JSON.stringify($json) }}',
					options: { response: { response: { neverError: true } } },
				},
			},
		],
		connections: {
			...Object.fromEntries(receivers.map((node) => [node.name, next(work[0]?.name ?? 'Ran')])),
			...Object.fromEntries(work.map((node) => [node.name, next('Ran')])),
		},
		settings: { executionOrder: 'v1' },
	};
}

/** Stores `receiverWorkflow(name, receiver, …)` in `n8n`, its Svc nodes on `at.credential`. */
export async function importReceiverWorkflow(
	n8n: N8nInstance,
	name: string,
	receiver: Parameters<typeof receiverWorkflow>[1],
	at: { sandboxUrl: string; credential: CredentialRef; workSeconds?: number },
): Promise<WorkflowRecord> {
	return await importWorkflow(
		n8n,
		withCredential(
			receiverWorkflow(name, receiver, at.sandboxUrl, { workSeconds: at.workSeconds }),
			at.credential,
		),
	);
}

/** The Svc Trigger on lead.created with the sandbox credential of the examples. */
export const SVC_TRIGGER_RECEIVER: WorkflowInput['nodes'][number] = {
	name: 'On Lead Created',
	type: 'n8n-nodes-svc.svcTrigger',
	typeVersion: 1.1,
	// As the editor gives every webhook node: without one, n8n 1.x puts the node's name in the path.
	webhookId: '3b8e6c2d-9f41-4a7e-b5d0-7c1e2a9f6b83',
	parameters: { events: ['lead.created'] },
	credentials: { svcApi: { id: SANDBOX_CREDENTIAL_ID, name: 'Svc sandbox' } },
};

/** Svc Trigger in batches (Events per Execution: Many) of at most `batchSize`. */
export function svcTriggerInBatches(batchSize: number): WorkflowInput['nodes'][number] {
	return {
		...SVC_TRIGGER_RECEIVER,
		name: 'On Lead Created (in batches)',
		parameters: { ...SVC_TRIGGER_RECEIVER.parameters, eventsPerExecution: 'batch', batchSize },
	};
}

/**
 * Svc Trigger running from the event list (queue mode): deliveries only answered, the main runs
 * the events, one per execution or, with `batchSize`, in batches.
 */
export function svcTriggerFromEventList(batchSize?: number): WorkflowInput['nodes'][number] {
	const receiver = batchSize === undefined ? SVC_TRIGGER_RECEIVER : svcTriggerInBatches(batchSize);
	return {
		...receiver,
		name: `${receiver.name} from the event list`,
		parameters: { ...receiver.parameters, runEventsFrom: 'eventList' },
	};
}

/** Svc Pull Trigger on lead.created, polling every minute, with the sandbox credential of the examples. */
export const SVC_PULL_TRIGGER_RECEIVER: WorkflowInput['nodes'][number] = {
	name: 'On Lead Created (pull)',
	type: SVC_PULL_TRIGGER_TYPE,
	typeVersion: 1,
	parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, events: ['lead.created'] },
	credentials: { svcApi: { id: SANDBOX_CREDENTIAL_ID, name: 'Svc sandbox' } },
};

/** Svc Pull Trigger in batch mode: each poll's new events as the items of executions of at most `batchSize`. */
export function pullReceiverInBatches(batchSize: number): WorkflowInput['nodes'][number] {
	return {
		...SVC_PULL_TRIGGER_RECEIVER,
		name: 'On Lead Created (pull, in batches)',
		parameters: {
			...SVC_PULL_TRIGGER_RECEIVER.parameters,
			eventsPerExecution: 'batch',
			batchSize,
		},
	};
}

/**
 * n8n's own Webhook node answering as soon as the request arrives ("Respond: Immediately"), the
 * receiver a user builds without this package, measured beside the Svc Trigger: `measure` runs
 * with its workflow (`name`, at `path`) imported, published and subscribed to lead.created at
 * `webhookBaseUrl`; the subscription is removed and the workflow unpublished afterwards. `n8n` is
 * read at each call, since a test that restarts n8n may replace it.
 */
export async function withWebhookNodeReceiver<T>(
	at: {
		n8n: () => N8nInstance;
		webhookBaseUrl: string;
		state: SandboxState;
		sandboxUrl: string;
		/** The same work after the receiver as the Svc Trigger it is measured beside (receiverWorkflow). */
		workSeconds?: number;
	},
	workflow: { name: string; path: string },
	measure: (workflowId: string) => Promise<T>,
): Promise<T> {
	const receiver: WorkflowInput['nodes'][number] = {
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: '6f0d6a1e-5c3b-4a8e-9d7f-2b1c0e9a8f34',
		parameters: {
			httpMethod: 'POST',
			path: workflow.path,
			responseMode: 'onReceived',
			options: {},
		},
	};
	const imported = await importWorkflow(
		at.n8n(),
		receiverWorkflow(workflow.name, receiver, at.sandboxUrl, { workSeconds: at.workSeconds }),
	);
	await activate(at.n8n(), imported.id);
	const subscription = createSubscription(at.state, {
		url: `${at.webhookBaseUrl}/${workflow.path}`,
		events: ['lead.created'],
	});
	try {
		return await measure(imported.id);
	} finally {
		at.state.store.subscriptions.delete(subscription.id);
		await deactivate(at.n8n(), imported.id);
	}
}

/**
 * The event an item reported as run: its own `id` (Svc's triggers), or its body's (n8n's Webhook
 * node). Other ids in it, such as where a batch read from, are not events that ran.
 */
function ranEventId(rawBody: string): string | undefined {
	let item: { id?: unknown; body?: { id?: unknown } };
	try {
		item = JSON.parse(rawBody) as typeof item;
	} catch {
		return undefined;
	}
	const id = typeof item.id === 'string' ? item.id : item.body?.id;
	return typeof id === 'string' && new RegExp(`^${EVENT_ID.source}$`).test(id) ? id : undefined;
}

/** The executions in which each event reached the node after the receiver, in order, as the sandbox recorded it. */
export function runsPastTrigger(state: SandboxState): Map<string, string[]> {
	const runs = new Map<string, string[]>();
	for (const request of state.requests.all()) {
		if (request.path !== RAN_PATH) continue;
		const id = ranEventId(request.rawBody);
		if (id !== undefined) runs.set(id, [...(runs.get(id) ?? []), request.query.execution ?? '']);
	}
	return runs;
}

/** How many times each event reached the node after the receiver. */
export function ranPastTrigger(state: SandboxState): Map<string, number> {
	return new Map([...runsPastTrigger(state)].map(([id, executions]) => [id, executions.length]));
}

/**
 * Of a receiver workflow's executions fetched with their data, those that stopped at the trigger:
 * ended well with no node after the receiver run, the cost of an event that had run (a repeat). A
 * person's Retry is not counted.
 */
export function stoppedAtTrigger(executions: ExecutionRecord[]): ExecutionRecord[] {
	return executions.filter(
		(execution) =>
			execution.status === 'success' &&
			!execution.retryOf &&
			execution.data !== undefined &&
			!('Ran' in execution.data.resultData.runData) &&
			!('Work' in execution.data.resultData.runData),
	);
}

/**
 * Of those that stopped at the trigger, the ones whose trigger answered the delivery 503 from
 * inside the execution (its slots were full, delivery.ts): the event had not run, and the service
 * sent it again. The rest stopped on a repeat.
 */
export function answeredBusy(execution: ExecutionRecord): boolean {
	return Object.values(execution.data?.resultData.runData ?? {}).some((runs) =>
		runs.some((run) => run.hints?.some((hint) => hint.message.startsWith('Answered 503'))),
	);
}

/** n8n polls every minute at the most often, at a random second: two polls and some time for the runs. */
export const TWO_POLLS_MS = 150_000;

/** `count` lead.created events at the sandbox (pull-<n>@example.test); returns their ids. */
export function emitLeadsCreated(state: SandboxState, count: number): string[] {
	return Array.from(
		{ length: count },
		(_, n) => state.deliveries.emit('lead.created', { email: `pull-${n}@example.test` }).event.id,
	);
}

/**
 * Waits until every one of `ids` ran past the trigger, for as long as more of them keep running:
 * it fails once `stallMs` passed with none more run (a backlog drains at the machine's pace, and
 * a busy machine needs more polls for it, not a broken trigger). Returns how often each ran.
 */
export async function untilRanPastTrigger(
	state: SandboxState,
	ids: string[],
	stallMs = TWO_POLLS_MS,
): Promise<number[]> {
	let ranBefore = -1;
	let progressAt = Date.now();
	await poll(
		() => {
			const ran = ranPastTrigger(state);
			const count = ids.filter((id) => ran.has(id)).length;
			if (count === ids.length) return true;
			if (count > ranBefore) {
				ranBefore = count;
				progressAt = Date.now();
			} else if (Date.now() - progressAt > stallMs) {
				throw new Error(
					`${ids.length} events to run past the trigger: ${count} ran, and none more within ${stallMs} ms`,
				);
			}
			return undefined;
		},
		// The stall above ends the wait; the test's own timeout bounds it.
		{ timeoutMs: Infinity, everyMs: 250, timedOut: () => true },
	);
	const ran = ranPastTrigger(state);
	return ids.map((id) => ran.get(id) ?? 0);
}
