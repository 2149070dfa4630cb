/**
 * Svc Trigger with Run Events From: The Event List (queue mode), in n8n's engine: deliveries are
 * verified and answered without an execution, and trigger() on the main runs the listed events,
 * in batches with Many, each once.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import { startSandbox } from '../../sandbox';
import type { EventEnvelope } from '../../nodes/Svc/contract';
import type { PublishedTrigger, TriggerHarness } from '../../harness/engine';
import { shutdownEngine } from '../../harness/engine';
import { signedDelivery } from '../../harness/engine/webhook-http';
import type { SvcTriggerOptions } from '../../harness/engine/svc';
import { createSvcTrigger, listedLeadsCreated, subscriptionSecret } from '../../harness/engine/svc';
import { until } from '../../harness/wait';

let sandbox: Sandbox;
/** Published triggers, unpublished after each test so that no runner outlives its test. */
const published: PublishedTrigger[] = [];

beforeAll(async () => {
	sandbox = await startSandbox({ allowLoopbackWebhooks: true });
});

afterEach(async () => {
	await Promise.all(published.splice(0).map(async (trigger) => await trigger.close()));
	sandbox.state.reset();
});

afterAll(async () => {
	await sandbox.close();
	await shutdownEngine();
});

/** `count` lead.created events the service created, in its event list, none delivered yet. */
const created = (count: number): EventEnvelope[] => listedLeadsCreated(sandbox, 'list', count);

async function eventListTrigger(options: SvcTriggerOptions = {}): Promise<TriggerHarness> {
	const t = await createSvcTrigger(sandbox, { runEventsFrom: 'eventList', ...options });
	await t.activate();
	return t;
}

async function publish(t: TriggerHarness): Promise<PublishedTrigger> {
	const trigger = await t.publish();
	published.push(trigger);
	return trigger;
}

const secretOf = (t: TriggerHarness): string => subscriptionSecret(sandbox, t);

const ids = (items: INodeExecutionData[]): unknown[] => items.map((item) => item.json.id);
const ranIds = (trigger: PublishedTrigger): unknown[] => trigger.runs.flatMap(ids);

describe('Svc Trigger running from the event list', () => {
	it('a delivery is verified and answered 200 without an execution; the main runs the event once', async () => {
		const t = await eventListTrigger();
		const trigger = await publish(t);
		expect(trigger.listens).toBe(true);
		const [event] = created(1);
		const answer = await t.deliver(signedDelivery(secretOf(t), event));
		expect(answer.response).toMatchObject({ statusCode: 200, body: { received: true } });
		expect(answer.workflowData).toBeUndefined();
		await until('the main ran the event', () => ranIds(trigger).length === 1);
		expect(trigger.runs[0][0].json).toMatchObject({
			id: event.id,
			type: 'lead.created',
			data: event.data,
			meta: { delivery: 'pull' },
		});
		// Delivered again (an answer the service did not get): answered, and run by nobody.
		const again = await t.deliver(signedDelivery(secretOf(t), event));
		expect(again.workflowData).toBeUndefined();
		created(1);
		await until('the next event ran', () => ranIds(trigger).length === 2);
		expect(ranIds(trigger)[0]).toBe(event.id);
		expect(new Set(ranIds(trigger)).size).toBe(2);
	});

	it("an event the service created between the subscription and the runner's start runs: the first read starts where the subscription began delivering", async () => {
		const t = await eventListTrigger();
		const [between] = created(1);
		const trigger = await publish(t);
		await until('the event ran', () => ranIds(trigger).length === 1);
		expect(ranIds(trigger)).toEqual([between.id]);
	});

	it('a forged delivery is refused as before: only a verified one is answered 200', async () => {
		const t = await eventListTrigger();
		await publish(t);
		const [event] = created(1);
		const forged = await t.deliver(signedDelivery('whsec_bm90IHRoZSBzZWNyZXQ=', event));
		expect(forged.response?.statusCode).toBe(401);
		expect(forged.workflowData).toBeUndefined();
	});

	it('Many: a burst runs as ⌈N / Batch Size⌉ executions, oldest first, each event once', async () => {
		const t = await eventListTrigger({ batchSize: 10 });
		const trigger = await publish(t);
		// Published before the events: the position starts at publishing, as the subscription does.
		const events = created(35);
		await until('every event ran', () => ranIds(trigger).length >= events.length);
		expect(trigger.runs.map((run) => run.length)).toEqual([10, 10, 10, 5]);
		expect(ranIds(trigger)).toEqual(events.map((event) => event.id));
		expect(trigger.failed).toEqual([]);
	});

	it('unpublished, it starts nothing more; published again, it runs what came meanwhile, once', async () => {
		const t = await eventListTrigger({ batchSize: 10 });
		const first = await publish(t);
		const before = created(3);
		await until('the first events ran', () => ranIds(first).length === 3);
		await first.close();
		const meanwhile = created(4);
		const second = await publish(t);
		await until('the events of the pause ran', () => ranIds(second).length === 4);
		expect(ranIds(second)).toEqual(meanwhile.map((event) => event.id));
		expect(ranIds(first)).toEqual(before.map((event) => event.id));
	});

	it('Each Delivery (the default): trigger() runs nothing, and each delivery starts its execution as before', async () => {
		const t = await createSvcTrigger(sandbox);
		await t.activate();
		const trigger = await publish(t);
		expect(trigger.listens).toBe(false);
		const [event] = created(1);
		const delivered = await t.deliver(signedDelivery(secretOf(t), event));
		expect(ids(delivered.passedOn ?? [])).toEqual([event.id]);
	});

	it('a test listen in the editor runs the delivery it receives, whatever Run Events From says', async () => {
		const t = await eventListTrigger({ mode: 'manual' });
		const [event] = created(1);
		const delivered = await t.deliver(signedDelivery(secretOf(t), event));
		expect(ids(delivered.passedOn ?? [])).toEqual([event.id]);
	});
});
