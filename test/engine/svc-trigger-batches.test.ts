/**
 * Svc Trigger with Events per Execution: Many, in n8n's engine: a delivery leads a batch that reads
 * the service's event list, and the deliveries of the events it holds are answered without an
 * execution of their own.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import { startSandbox } from '../../sandbox';
import type { EventEnvelope } from '../../nodes/Svc/contract';
import type { DeliveryResult, TriggerHarness } from '../../harness/engine';
import { shutdownEngine } from '../../harness/engine';
import { signedDelivery } from '../../harness/engine/webhook-http';
import { createSvcTrigger, listedLeadsCreated, subscriptionSecret } from '../../harness/engine/svc';
import { processedData } from '../../harness/engine/processed-data';
import { loadedAnew } from '../../harness/engine/loaded-anew';
import { until } from '../../harness/wait';
import { claimScope } from '../../nodes/Svc/trigger/exactlyOnce/claimRecord';
import { eventClaims } from '../../nodes/Svc/trigger/exactlyOnce/eventClaims';
import { executionPlace } from '../../nodes/Svc/trigger/exactlyOnce/executionPlace';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ allowLoopbackWebhooks: true });
});

afterEach(() => sandbox.state.reset());

afterAll(async () => {
	await sandbox.close();
	await shutdownEngine();
});

/** `count` lead.created events the service created, in its event list, none delivered yet. */
const created = (count: number): EventEnvelope[] => listedLeadsCreated(sandbox, 'batch', count);

/** A published Svc Trigger in batches of `batchSize`, before any execution of its workflow ran here. */
async function startedBatchTrigger(batchSize: number): Promise<TriggerHarness> {
	// The service cannot reach this URL: the tests deliver by hand, each event when they choose.
	const t = await createSvcTrigger(sandbox, {
		batchSize,
		webhookBaseUrl: 'https://hooks.example.com/webhook',
	});
	await t.activate();
	return t;
}

/**
 * The same, once an execution of its workflow ran in this process, as n8n's regular mode shows
 * within the first delivery: an event from a minute ago, run alone, before the tests' events.
 */
async function batchTrigger(batchSize: number): Promise<TriggerHarness> {
	const t = await startedBatchTrigger(batchSize);
	const [earlier] = listedLeadsCreated(sandbox, 'batch', 1, 60_000);
	expect(ids((await deliver(t, earlier)).passedOn)).toEqual([earlier.id]);
	return t;
}

const secretOf = (t: TriggerHarness): string => subscriptionSecret(sandbox, t);

const deliver = async (t: TriggerHarness, event: EventEnvelope): Promise<DeliveryResult> =>
	await t.deliver(signedDelivery(secretOf(t), event));

const ids = (items: INodeExecutionData[] | undefined): unknown[] =>
	(items ?? []).map((item) => item.json.id);

/** n8n's processed-data row of the trigger's workflow: the claims. */
const row = (t: TriggerHarness) => processedData.rows.get(`${t.workflowId} `) ?? [];

describe('Svc Trigger in batches (Events per Execution: Many)', () => {
	it('a lone delivery leads a batch: one execution runs the events the service created, oldest first, shaped as one per delivery; their deliveries are answered 200 with no execution', async () => {
		const t = await batchTrigger(100);
		const events = created(5);
		const lead = await deliver(t, events[0]);
		expect(lead.response).toMatchObject({ statusCode: 200, body: { received: true } });
		expect(lead.workflowData?.[0]).toHaveLength(1);
		expect(ids(lead.passedOn)).toEqual(events.map((event) => event.id));
		const receipt = (lead.workflowData?.[0][0].json.meta as IDataObject).receipt_id;
		for (const [index, item] of (lead.passedOn ?? []).entries()) {
			expect(item.json).toMatchObject({
				id: events[index].id,
				type: 'lead.created',
				created_at: events[index].created_at,
				data: events[index].data,
				meta: { delivery: 'webhook', receipt_id: receipt },
			});
		}
		for (const event of events) expect(row(t)).toContain(`event ${event.id}`);

		for (const event of events.slice(1)) {
			const follower = await deliver(t, event);
			expect(follower.workflowData).toBeUndefined();
			expect(follower.response).toMatchObject({ statusCode: 200, body: { received: true } });
		}
	});

	it('just after a start the first delivery runs alone, and its execution tells that executions run here: deliveries waiting for that then batch', async () => {
		const t = await startedBatchTrigger(100);
		const events = created(4);
		// n8n stored the first delivery's execution and has not run it yet.
		const first = await t.receive(signedDelivery(secretOf(t), events[0]));
		expect((first.workflowData?.[0][0].json.meta as IDataObject).batch).toBeUndefined();
		const waiting = events.slice(1).map(async (event) => await deliver(t, event));
		expect(ids(await t.runAgain(first.workflowData ?? [], { mode: 'webhook' }))).toEqual([
			events[0].id,
		]);
		const results = await Promise.all(waiting);
		expect(results.map((result) => ids(result.passedOn)).filter((run) => run.length > 0)).toEqual([
			slice(events, 1, 4),
		]);
		expect(results.map((result) => result.response?.statusCode)).toEqual([200, 200, 200]);
	});

	it("queue mode, at a webhook processor: a delivery that waited to learn where executions run is answered 200 duplicate with no execution when a worker's answer named its claim meanwhile", async () => {
		const t = await startedBatchTrigger(100);
		const [probed, copied] = created(2);
		const placeAsked = jest.spyOn(executionPlace, 'forBatch');
		try {
			// The first delivery probes; a worker elsewhere runs its execution, so none runs here.
			expect((await t.receive(signedDelivery(secretOf(t), probed))).workflowData).toBeDefined();
			const copy = t.receive(signedDelivery(secretOf(t), copied));
			await until('the copy waits to learn the place', () => placeAsked.mock.calls.length === 2);
			// What a worker's answer through this process teaches (claimsReport.ts).
			const scope = claimScope({ getWorkflow: () => ({ id: t.workflowId, active: true }) });
			eventClaims.learn(scope, [copied.id], Date.now());
			const answered = await copy;
			expect(answered.workflowData).toBeUndefined();
			expect(answered.response).toMatchObject({
				statusCode: 200,
				body: { received: true, duplicate: true },
			});
		} finally {
			placeAsked.mockRestore();
		}
	});

	it('Batch Size bounds a batch; the next delivery leads the next batch, read on from where the last stopped', async () => {
		const t = await batchTrigger(3);
		const events = created(7);
		expect(ids((await deliver(t, events[0])).passedOn)).toEqual(slice(events, 0, 3));
		// Delivered out of order: the event read by the first batch costs nothing.
		expect((await deliver(t, events[2])).workflowData).toBeUndefined();
		expect(ids((await deliver(t, events[3])).passedOn)).toEqual(slice(events, 3, 6));
		expect((await deliver(t, events[1])).workflowData).toBeUndefined();
		expect(ids((await deliver(t, events[6])).passedOn)).toEqual(slice(events, 6, 7));
		for (const event of events.slice(4, 6))
			expect((await deliver(t, event)).workflowData).toBeUndefined();
	});

	it('deliveries arriving while a batch is read wait for it, and are answered 200 from its claims with no execution', async () => {
		const t = await batchTrigger(100);
		const events = created(4);
		// n8n stored the first delivery's execution and has not run it yet.
		const first = await t.receive(signedDelivery(secretOf(t), events[0]));
		const waiting = events.slice(1).map(async (event) => await deliver(t, event));
		const passedOn = await t.runAgain(first.workflowData ?? [], { mode: 'webhook' });
		expect(ids(passedOn)).toEqual(events.map((event) => event.id));
		for (const result of await Promise.all(waiting)) {
			expect(result.workflowData).toBeUndefined();
			expect(result.response?.statusCode).toBe(200);
		}
	});

	it("a person's Retry of a batch cut short reads the same range again and runs what its run claimed, not what another execution ran", async () => {
		const t = await batchTrigger(100);
		const events = created(4);
		const first = await t.receive(signedDelivery(secretOf(t), events[0]));
		await t.runAgain(first.workflowData ?? [], { mode: 'webhook' });
		// Another execution claimed one more event since (a pull trigger beside it, in another process).
		const later = created(1)[0];
		row(t).push(`event ${later.id}`, 'claim 9d1f4c1e-2b7a-4c55-8f0e-1a2b3c4d5e6f');
		// n8n died before the batch ran past the trigger, and started again.
		t.restart(
			await loadedAnew(
				async () => new (await import('../../nodes/Svc/SvcTrigger.node')).SvcTrigger(),
			),
		);
		const retried = await t.runAgain(first.workflowData ?? [], { mode: 'retry' });
		expect(ids(retried)).toEqual(events.map((event) => event.id));
	});

	it("without the service's event list (404) each delivery runs its event alone, saying why", async () => {
		const t = await batchTrigger(100);
		sandbox.state.eventLog.configure({ enabled: false });
		const events = created(2);
		const results = [await deliver(t, events[0]), await deliver(t, events[1])];
		expect(results.map((result) => ids(result.passedOn))).toEqual([[events[0].id], [events[1].id]]);
		expect(results.map((result) => result.response?.statusCode)).toEqual([200, 200]);
	});

	it('after a read that failed (the event it read after is no longer kept), the next batch reads from its own leading event', async () => {
		const t = await batchTrigger(100);
		const [first] = created(1);
		expect(ids((await deliver(t, first)).passedOn)).toEqual([first.id]);
		// The event the next batch would read after is no longer kept: 410, and that batch runs alone.
		sandbox.state.eventLog.clear();
		const [second] = created(1);
		expect(ids((await deliver(t, second)).passedOn)).toEqual([second.id]);
		const later = created(2);
		expect(ids((await deliver(t, later[0])).passedOn)).toEqual(later.map((event) => event.id));
	});

	it('a test listen from the editor runs the delivered event alone and claims nothing', async () => {
		const published = await batchTrigger(100);
		const listening = await createSvcTrigger(sandbox, {
			batchSize: 100,
			mode: 'manual',
			workflowId: published.workflowId,
			webhookBaseUrl: 'https://hooks.example.com/webhook-test',
		});
		await listening.activate();
		const events = created(3);
		const listened = await listening.deliver(signedDelivery(secretOf(listening), events[0]));
		expect(ids(listened.passedOn)).toEqual([events[0].id]);
		// The output pane says what a run would get instead.
		expect(listened.hints?.map((hint) => hint.message)).toEqual([
			expect.stringMatching(
				/^A test listen runs the delivered event alone\. Published, it would run in a batch .*up to 100, oldest first/,
			),
		]);
		expect(row(published)).not.toContain(`event ${events[0].id}`);
		expect(ids((await deliver(published, events[0])).passedOn)).toEqual(
			events.map((event) => event.id),
		);
	});
});

/** The ids of `events` from `start` up to `end`. */
function slice(events: EventEnvelope[], start: number, end: number): string[] {
	return events.slice(start, end).map((event) => event.id);
}
