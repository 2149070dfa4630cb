/**
 * The receivers a burst goes to, each set up in n8n with a subscription in the sandbox: this
 * package's Svc Trigger; the floor, a bench-only community trigger that answers 200 and checks
 * nothing (scripts/bench/floor/BenchFloorTrigger.node.ts); and what users build without this
 * package, examples/receive-signed-events-without-this-package.json (Webhook with the raw body →
 * Code checking the Standard Webhooks signature → Remove Duplicates → NoOp). All end in a NoOp
 * named "Handle Event".
 */
import { randomUUID } from 'node:crypto';

import type { Sandbox } from '../../../sandbox';
import { createSubscription } from '../../../sandbox/operations';
import type { CredentialRef, WorkflowInput } from '../../../harness/n8n/api';
import { activate, deactivate, importWorkflow } from '../../../harness/n8n/api';
import { placedVersion } from '../../../harness/engine/node-types';
import type { N8nInstance } from '../../../harness/n8n/instance';
import { PEER_END_NODE, PEER_EXAMPLE_ENV, peerWorkflow } from '../../../harness/peer-example';
import { SVC_TRIGGER_TYPE } from '../../../harness/project';
import { SvcTrigger } from '../../../nodes/Svc/SvcTrigger.node.ts';
import { FLOOR_TRIGGER_TYPE, FLOOR_TRIGGER_WHEN_DONE_TYPE } from '../floor/build';

export const RECEIVER_KINDS = [
	'svc',
	'svc-batch',
	'svc-list',
	'svc-list-batch',
	'floor',
	'floor-when-done',
	'peer',
] as const;
export type ReceiverKind = (typeof RECEIVER_KINDS)[number];
/** (f)'s side-by-side table: Svc Trigger one per delivery against the floors and the peer. */
export const DEFAULT_RECEIVERS: ReceiverKind[] = ['svc', 'floor', 'floor-when-done', 'peer'];
/** (f-queue)'s: Svc Trigger as in regular mode, then run from the event list (the queue-mode setting) one per event and in batches, and the peer. */
export const QUEUE_RECEIVERS: ReceiverKind[] = ['svc', 'svc-list', 'svc-list-batch', 'peer'];

export const RECEIVER_LABEL: Record<ReceiverKind, string> = {
	svc: 'Svc Trigger → NoOp',
	'svc-batch': 'Svc Trigger in batches of 100 → NoOp',
	'svc-list': 'Svc Trigger from the event list → NoOp',
	'svc-list-batch': 'Svc Trigger from the event list, in batches of 100 → NoOp',
	floor: 'floor: bare community trigger → NoOp',
	'floor-when-done': 'floor answered when its execution ends → NoOp',
	peer: 'peer: Webhook → Code → Remove Duplicates → NoOp',
};

/** The version the editor places a new Svc Trigger at. */
const SVC_TRIGGER_VERSION = placedVersion(new SvcTrigger().description);

/** The last node of both workflows: an event that reached it got through. */
export const END_NODE = PEER_END_NODE;

/** Both receivers run in the same n8n, with its defaults but what the peer needs. */
export const RECEIVER_ENV: Record<string, string> = PEER_EXAMPLE_ENV;

export interface ReceiverSetup {
	/** The main n8n (activation, executions). */
	n8n: N8nInstance;
	sandbox: Sandbox;
	credential: CredentialRef;
	/** Where the service reaches n8n's production webhooks, e.g. https://localhost:5678/webhook. */
	webhookBase: string;
	/** Tells apart the workflows of several runs in one n8n (webhook paths must differ). */
	run: number;
}

export interface Receiver {
	kind: ReceiverKind;
	workflowId: string;
	/** Unpublishes the workflow in `n8n` (the main, or the one restarted after it ended) and leaves no subscription behind. */
	stop(n8n: N8nInstance): Promise<void>;
}

/** The Svc Trigger receivers: Run Events From, and Batch Size when in batches. */
const SVC_RECEIVERS: Partial<
	Record<ReceiverKind, { runEventsFrom: 'delivery' | 'eventList'; batchSize?: number }>
> = {
	svc: { runEventsFrom: 'delivery' },
	'svc-batch': { runEventsFrom: 'delivery', batchSize: 100 },
	'svc-list': { runEventsFrom: 'eventList' },
	'svc-list-batch': { runEventsFrom: 'eventList', batchSize: 100 },
};

/** Svc Trigger one per delivery or (`batchSize`) in batches, run from each delivery or the event list. */
function svcWorkflow(
	setup: ReceiverSetup,
	kind: ReceiverKind,
	{ runEventsFrom, batchSize }: { runEventsFrom: 'delivery' | 'eventList'; batchSize?: number },
): WorkflowInput {
	const batches =
		batchSize === undefined ? {} : { eventsPerExecution: 'batch', batchSize: batchSize };
	return {
		name: `bench burst ${setup.run}: ${RECEIVER_LABEL[kind]}`,
		nodes: [
			{
				name: 'On Lead Created',
				type: SVC_TRIGGER_TYPE,
				typeVersion: SVC_TRIGGER_VERSION,
				parameters: {
					events: ['lead.created'],
					otherEvents: '',
					...batches,
					runEventsFrom,
					options: {},
				},
				webhookId: randomUUID(),
				credentials: { svcApi: { id: setup.credential.id, name: setup.credential.name } },
			},
			{ name: END_NODE, type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} },
		],
		connections: { 'On Lead Created': { main: [[{ node: END_NODE, type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

/** A floor's workflow: its webhook at `/webhook/<webhookId>/webhook`, as n8n serves a trigger's path. */
function floorWorkflow(setup: ReceiverSetup, type: string, webhookId: string): WorkflowInput {
	return {
		name: `bench burst ${setup.run}: ${type}`,
		nodes: [
			{ name: 'On Delivery', type, typeVersion: 2, parameters: {}, webhookId },
			{ name: END_NODE, type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} },
		],
		connections: { 'On Delivery': { main: [[{ node: END_NODE, type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

/**
 * Subscribes `url` in the sandbox and publishes the workflow made with the subscription's signing
 * secret; stopping removes both.
 */
async function subscribedReceiver(
	kind: ReceiverKind,
	setup: ReceiverSetup,
	url: string,
	workflow: (secret: string) => WorkflowInput,
): Promise<Receiver> {
	const subscriptions = setup.sandbox.state.store.subscriptions;
	const subscription = createSubscription(setup.sandbox.state, { url, events: ['lead.created'] });
	const stored = await importWorkflow(
		setup.n8n,
		workflow(subscriptions.get(subscription.id)?.secret ?? ''),
	);
	await activate(setup.n8n, stored.id);
	return {
		kind,
		workflowId: stored.id,
		stop: async (n8n) => {
			await deactivate(n8n, stored.id);
			subscriptions.delete(subscription.id);
		},
	};
}

export async function setUpReceiver(kind: ReceiverKind, setup: ReceiverSetup): Promise<Receiver> {
	const { n8n, sandbox } = setup;
	const subscriptions = sandbox.state.store.subscriptions;
	if (subscriptions.size > 0)
		throw new Error(
			'A burst receiver needs the sandbox without other subscriptions: each would get the burst',
		);
	const svc = SVC_RECEIVERS[kind];
	if (svc) {
		// Publishing calls the trigger's create(), which subscribes at n8n's webhook URL.
		const stored = await importWorkflow(n8n, svcWorkflow(setup, kind, svc));
		await activate(n8n, stored.id);
		if (subscriptions.size !== 1)
			throw new Error(`Publishing the Svc Trigger left ${subscriptions.size} subscriptions`);
		return {
			kind,
			workflowId: stored.id,
			stop: async (current) => void (await deactivate(current, stored.id)),
		};
	}
	if (kind === 'floor' || kind === 'floor-when-done') {
		const webhookId = randomUUID();
		const type = kind === 'floor' ? FLOOR_TRIGGER_TYPE : FLOOR_TRIGGER_WHEN_DONE_TYPE;
		return await subscribedReceiver(kind, setup, `${setup.webhookBase}/${webhookId}/webhook`, () =>
			floorWorkflow(setup, type, webhookId),
		);
	}
	const path = `svc-events-${setup.run}`;
	return await subscribedReceiver(kind, setup, `${setup.webhookBase}/${path}`, (secret) => {
		const peer = peerWorkflow(path, secret);
		return { ...peer, name: `bench burst ${setup.run}: ${peer.name}` };
	});
}
