import type { IDataObject, INodeExecutionData, INodeType } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { capturedLogs, clearCapturedLogs, shutdownEngine } from '../../harness/engine';
import type { PollHarness, PollResult } from '../../harness/engine';
import {
	createSvcPullTrigger,
	createSvcTrigger,
	requestsTo,
	useSandbox,
} from '../../harness/engine/svc';
import { processedData } from '../../harness/engine/processed-data';
import { signedDelivery } from '../../harness/engine/webhook-http';
import { loadedAnew } from '../../harness/engine/loaded-anew';
import { until } from '../../harness/wait';

const sandbox = useSandbox();
let workflowCounter = 0;

afterAll(async () => {
	await shutdownEngine();
});

function emit(count: number, type = 'lead.created'): string[] {
	return Array.from(
		{ length: count },
		(_, n) => sandbox().state.deliveries.emit(type, { n }).event.id,
	);
}

/** The event ids each execution passed on past the trigger, failing on an execution that ended in error. */
function passedOn(result: PollResult): string[][] {
	return result.executions.map((execution) => {
		if (execution instanceof Error) throw execution;
		return execution.map((item: INodeExecutionData) => item.json.id as string);
	});
}

/** The trigger as a restarted n8n loads it: nothing of the killed process's memory. */
const freshPullTrigger = async (): Promise<INodeType> =>
	await loadedAnew(
		async () => new (await import('../../nodes/Svc/SvcPullTrigger.node')).SvcPullTrigger(),
	);

function eventRequests(): number {
	return requestsTo(sandbox(), 'GET /v1/events').length;
}

/**
 * A backlog of three pages, the last one short: the service's pages are capped at 10 events, so
 * that three pages take 25 executions, not 250, and a loaded machine stays inside the poll's budget.
 */
const PAGE = 10;
function emitThreePages(): string[] {
	sandbox().state.eventLog.configure({ pageSizeMax: PAGE });
	return emit(2 * PAGE + 5);
}

/** A published pull trigger whose test poll has run: from here on, events created run at the next poll. */
async function published(
	options: {
		events?: string[];
		apiKey?: string;
		parameters?: IDataObject;
		durableCursors?: boolean;
	} = {},
): Promise<PollHarness> {
	const trigger = await createSvcPullTrigger(sandbox(), {
		workflowId: `pull-workflow-${++workflowCounter}`,
		...options,
	});
	expect(passedOn(await trigger.poll())).toEqual([]);
	return trigger;
}

/**
 * A published pull trigger and a Svc Trigger in one workflow. The test delivers each event itself
 * (`deliveryOf`): the sandbox must not send to the trigger's made-up host.
 */
async function bothTriggers(parameters?: IDataObject) {
	const pull = await published({ parameters });
	const webhook = await createSvcTrigger(sandbox(), {
		workflowId: `pull-workflow-${workflowCounter}`,
	});
	await webhook.activate();
	const [subscription] = sandbox().state.store.subscriptions.values();
	sandbox().state.store.subscriptions.delete(subscription.id);
	const deliveryOf = (id: string) => {
		const event = sandbox()
			.state.deliveries.listEvents()
			.find((listed) => listed.id === id);
		if (!event) throw new Error(`no event ${id}`);
		return signedDelivery(subscription.secret, event);
	};
	return { pull, webhook, deliveryOf };
}

describe("Svc Pull Trigger in n8n's engine", () => {
	it('starts from publishing: earlier events do not run, later ones run once each, one execution per event, in order', async () => {
		emit(2);
		const trigger = await published();
		const ids = emit(3);
		const result = await trigger.poll();
		expect(result.returned).toBeNull();
		expect(passedOn(result)).toEqual(ids.map((id) => [id]));
		const [first] = result.executions as INodeExecutionData[][];
		expect(first[0].json).toEqual({
			...sandbox()
				.state.deliveries.listEvents()
				.find((event) => event.id === ids[0]),
			meta: { delivery: 'pull', pull_id: expect.any(String) as string },
		});
		expect(passedOn(await trigger.poll())).toEqual([]);
	});

	it('an idle poll costs exactly one request and starts nothing', async () => {
		const trigger = await published();
		const before = eventRequests();
		expect((await trigger.poll()).executions).toEqual([]);
		expect(eventRequests() - before).toBe(1);
	});

	it('drains a backlog page by page in one poll, oldest first, asking for full pages', async () => {
		const trigger = await published();
		const ids = emitThreePages();
		const before = eventRequests();
		expect(passedOn(await trigger.poll()).flat()).toEqual(ids);
		const reads = requestsTo(sandbox(), 'GET /v1/events').slice(before);
		expect(reads.map((read) => read.query.limit)).toEqual(['100', '100', '100']);
	});

	it('reads the next page while the page before claims its events, and no further ahead', async () => {
		const trigger = await published();
		const ids = emitThreePages();
		const before = eventRequests();
		let release = () => {};
		const answersHeldUntil = new Promise<void>((resolve) => (release = resolve));
		const polling = trigger.poll({ answersHeldUntil });
		// No execution has answered yet: the second page is started anyway, the third is not read.
		await until('two pages to start', () => trigger.started === 2 * PAGE);
		expect(eventRequests() - before).toBe(2);
		release();
		expect(passedOn(await polling).flat()).toEqual(ids);
		expect(eventRequests() - before).toBe(3);
	});

	it("run in the process that polled (n8n's regular mode), an event's claim is one write to n8n's record, never read again after a settle", async () => {
		const trigger = await published();
		const row = `pull-workflow-${workflowCounter} `;
		const [id] = emit(1);
		const callsBefore = processedData.calls.get(row) ?? 0;
		expect(passedOn(await trigger.poll())).toEqual([[id]]);
		expect((processedData.calls.get(row) ?? 0) - callsBefore).toBe(1);
		expect(processedData.rows.get(row)).toEqual([`event ${id}`, expect.stringMatching(/^claim /)]);
	});

	it('one per event: at most 20 executions unfinished at once, each slot refilled as its execution ends', async () => {
		const trigger = await published();
		const ids = emit(45);
		const result = await trigger.poll();
		expect(passedOn(result)).toEqual(ids.map((id) => [id]));
		expect(result.peakUnfinished).toBe(20);
	});

	it('a 429 while reading ahead: the pages under way run and the position passes them, then the poll fails and the next poll reads on', async () => {
		const trigger = await published();
		const ids = emitThreePages();
		let release = () => {};
		const answersHeldUntil = new Promise<void>((resolve) => (release = resolve));
		const polling = trigger.poll({ answersHeldUntil });
		await until('two pages to start', () => trigger.started === 2 * PAGE);
		sandbox().state.faults.set([
			{ route: 'GET /v1/events', rateLimitedRate: 1, retryAfterSeconds: 0 },
		]);
		release();
		const failure = await polling.catch((error: unknown) => error);
		expect((failure as NodeApiError).failure?.cause).toBe('rate-limited');
		expect(trigger.staticData.position).toMatchObject({ after: ids[2 * PAGE - 1] });
		sandbox().state.faults.set([]);
		expect(passedOn(await trigger.poll()).flat()).toEqual(ids.slice(2 * PAGE));
	});

	it('the position never moves past an event with no stored execution; after a restart, events n8n stored no position past are read again and stop at the trigger', async () => {
		const trigger = await published();
		const ids = emit(3);
		// n8n could not store the executions: nothing may count as run.
		expect((await trigger.poll({ executions: 'notStored' })).executions).toEqual([]);
		expect(passedOn(await trigger.poll())).toEqual(ids.map((id) => [id]));
		// n8n stored the position with those executions, before their claims moved it.
		expect(trigger.storedStaticData.position).not.toHaveProperty('after');
		trigger.restart(await freshPullTrigger());
		expect(passedOn(await trigger.poll())).toEqual([[], [], []]);
	});

	it.each([
		['one execution per event', {}, (ids: string[]) => ids.map((id) => [id])],
		['in batch mode', { eventsPerExecution: 'batch', batchSize: 100 }, (ids: string[]) => [ids]],
	])(
		'%s: unpublished and published again, it reads on where it stopped, though n8n stored an older position, and starts nothing for what ran',
		async (_mode, parameters, runs) => {
			const trigger = await published({ parameters });
			const before = emit(3);
			expect(passedOn(await trigger.poll())).toEqual(runs(before));
			expect(trigger.storedStaticData.position).not.toMatchObject({ after: before[2] });
			const requests = eventRequests();
			trigger.activate();
			const meanwhile = emit(2);
			expect(passedOn(await trigger.poll())).toEqual(runs(meanwhile));
			// It read after the last event it ran, not from the first publish.
			const [read] = requestsTo(sandbox(), 'GET /v1/events').slice(requests);
			expect(read.query.after).toBe(before[2]);
		},
	);

	it('a restart while a backlog drains: n8n stored a position with each execution started, so at most 20 claimed events are read again, each an execution stopped at the trigger', async () => {
		const trigger = await published();
		const ids = emit(45);
		expect(passedOn(await trigger.poll({ workMs: 20 })).flat()).toEqual(ids);
		trigger.restart(await freshPullTrigger());
		const again = passedOn(await trigger.poll());
		expect(again.flat()).toEqual([]);
		expect(again.length).toBeGreaterThan(0);
		expect(again.length).toBeLessThanOrEqual(20);
	});

	it("a person's Retry runs the event its run had claimed, though this process has seen it since, and not one another run claimed", async () => {
		const trigger = await published();
		const [id] = emit(1);
		const [[claimed]] = (await trigger.poll()).executions as INodeExecutionData[][];
		// The run claimed the event and was cut short after (a crash): Retry runs it with its own pull id.
		expect((await trigger.retry([claimed])).map((item) => item.json.id)).toEqual([id]);
		// A copy read again under another pull id stops: the claim is not its own.
		const copy = { json: { ...claimed.json, meta: { delivery: 'pull', pull_id: 'another' } } };
		expect(await trigger.retry([copy])).toEqual([]);
	});

	describe('on queue-mode workers, a run n8n 2.x ended without its data (its worker died)', () => {
		it("starts again under its pull id, which holds the event for a person's Retry; the Retry runs it once, and the other events ran as usual", async () => {
			clearCapturedLogs();
			const trigger = await published();
			const ids = emit(3);
			const result = await trigger.poll({ onWorkers: true, lostRuns: 1 });
			expect(result.lost.map((items) => items.map((item) => item.json.id))).toEqual([[ids[0]]]);
			// Each execution's trigger output, or its error's message (n8n keeps an error as data).
			const outcomes = result.executions.map((execution) =>
				Array.isArray(execution) ? execution.map((item) => item.json.id) : execution.message,
			);
			expect(outcomes).toEqual([
				expect.stringMatching(/ended without its data$/),
				[ids[1]],
				[ids[2]],
				expect.stringMatching(
					new RegExp(
						`^n8n ended the execution that had this event \\(\\d+\\) without its data when the worker running it stopped, and this execution took it over, so event ${ids[0]} may already have run past the trigger$`,
					),
				),
			]);
			expect(capturedLogs().map((entry) => entry.message)).toContainEqual(
				expect.stringMatching(
					/ended execution \d+ without its data \(the worker running it stopped\); its 1 events start again/,
				),
			);
			// A person's Retry of the restarted run carries the same pull id: it runs the event.
			const restartedItems = result.lost[0].map((item) => ({
				json: { ...item.json, meta: { ...(item.json.meta as IDataObject), lost_run: {} } },
			}));
			expect((await trigger.retry(restartedItems)).map((item) => item.json.id)).toEqual([ids[0]]);
			// The position passed all three: the next poll starts nothing.
			expect((await trigger.poll({ onWorkers: true })).executions).toEqual([]);
		});

		it("a run whose trigger step's answer never reaches the poll, only n8n's own as its job finishes (n8n 1.x, a job run again that ended marked crashed), and whose trigger step passed: the position passes its event from the run's data, with no execution more", async () => {
			const trigger = await published();
			const ids = emit(3);
			const result = await trigger.poll({ onWorkers: true, unansweredRuns: 1 });
			expect(passedOn(result)).toEqual(ids.map((id) => [id]));
			expect(trigger.staticData.position).toMatchObject({ after: ids[2] });
			expect((await trigger.poll({ onWorkers: true })).executions).toEqual([]);
		});

		it("a run that took over a lost run's claimed event, holding it for a person's Retry, and whose trigger step's answer never reaches the poll, only n8n's 500 as its job finishes: that claim stood, so the position passes the event with no execution more", async () => {
			const trigger = await published();
			const [id] = emit(1);
			// Neither the lost run nor the one that took its event over answers the poll.
			const result = await trigger.poll({ onWorkers: true, lostRuns: 1, unansweredRuns: 2 });
			const messages = result.executions.map((execution) =>
				Array.isArray(execution) ? execution : execution.message,
			);
			expect(messages).toEqual([
				expect.stringMatching(/ended without its data$/),
				expect.stringMatching(
					new RegExp(`took it over, so event ${id} may already have run past the trigger$`),
				),
			]);
			expect(trigger.staticData.position).toMatchObject({ after: id });
			expect((await trigger.poll({ onWorkers: true })).executions).toEqual([]);
		});

		it('a run that keeps ending so starts again three times at most, then a warning in the log names its events', async () => {
			clearCapturedLogs();
			const trigger = await published();
			const [id] = emit(1);
			const result = await trigger.poll({ onWorkers: true, lostRuns: 10 });
			// The first run passed the event on; the three restarts stopped at the trigger, holding it.
			expect(result.lost.length).toBe(1);
			expect(result.executions.length).toBe(4);
			expect(capturedLogs().map((entry) => entry.message)).toContainEqual(
				expect.stringContaining(
					`n8n ended 4 executions of events ${id} without their data; they do not start again`,
				),
			);
		});
	});

	it('an event delivered by Svc Trigger in the same workflow does not run again when pulled, and the other way round', async () => {
		const { pull, webhook, deliveryOf } = await bothTriggers();
		const [delivered] = emit(1);
		const first = await webhook.deliver(deliveryOf(delivered));
		expect(first.passedOn?.map((item) => item.json.id)).toEqual([delivered]);
		// The poll knows the webhook's claim: it starts no execution for the event, and passes it.
		expect(passedOn(await pull.poll())).toEqual([]);
		expect(pull.staticData.position).toMatchObject({ after: delivered });
		const [pulled] = emit(1);
		expect(passedOn(await pull.poll())).toEqual([[pulled]]);
		// This process knows the pull claimed it: answered at once, with no execution.
		const late = await webhook.deliver(deliveryOf(pulled));
		expect(late.passedOn).toBeUndefined();
		expect(late.response).toMatchObject({ statusCode: 200, body: { duplicate: true } });
	});

	describe('beside Svc Trigger, an event reaching both before either claimed it', () => {
		const oneEvent = async () => {
			const { pull, webhook, deliveryOf } = await bothTriggers();
			const [id] = emit(1);
			return { pull, webhook, id, delivery: deliveryOf(id) };
		};

		it("delivered while the poll's execution has not claimed it yet: the delivery is answered at once without an execution, the poll keeping the event", async () => {
			const { pull, webhook, id, delivery } = await oneEvent();
			let release = () => {};
			const startsHeldUntil = new Promise<void>((resolve) => (release = resolve));
			const polling = pull.poll({ startsHeldUntil });
			await until('the poll to start its execution', () => pull.started === 1);
			const delivering = webhook.deliver(delivery);
			release();
			const delivered = await delivering;
			expect(delivered.response?.body).toEqual({ received: true, duplicate: true });
			expect(delivered.workflowData).toBeUndefined();
			expect(passedOn(await polling)).toEqual([[id]]);
		});

		it("read while the delivery's execution has not claimed it yet: the poll waits for that claim and starts nothing", async () => {
			const { pull, webhook, id, delivery } = await oneEvent();
			const received = await webhook.receive(delivery);
			const requests = eventRequests();
			const polling = pull.poll();
			await until('the poll to read the event', () => eventRequests() > requests);
			const ran = await webhook.runAgain(received.workflowData ?? [], { mode: 'webhook' });
			expect(ran.map((item) => item.json.id)).toEqual([id]);
			expect(passedOn(await polling)).toEqual([]);
			expect(pull.staticData.position).toMatchObject({ after: id });
		});
	});

	it("410: a failed execution and a log line name the workflow, the node and the span that may be missing; the trigger reads on from the last event's time", async () => {
		const trigger = await published();
		emit(1);
		expect(passedOn(await trigger.poll())).toHaveLength(1);
		const ranAt = (trigger.staticData.position as IDataObject).afterCreatedAt as string;
		// The service no longer keeps the last event this trigger ran (an id it does not know is the same 410).
		const position = trigger.staticData.position as IDataObject;
		position.after = 'evt_forgotten';
		clearCapturedLogs();
		const later = emit(2);
		const result = await trigger.poll();
		expect(passedOn(result).flat()).toEqual(later);
		// n8n records what the poll reports as a failed execution, which runs the Error Workflow.
		expect(result.reported).toHaveLength(1);
		const [failure] = result.reported;
		expect(failure).toBeInstanceOf(NodeOperationError);
		expect(failure.message).toContain('"Svc Pull Trigger" of workflow "Harness workflow"');
		expect(failure.message).toContain(
			`Events created from ${ranAt} (after event evt_forgotten) until 30 days ago may be missing`,
		);
		expect((failure as NodeOperationError).description).toMatch(/read on from the oldest event/);
		const warning = capturedLogs().find((log) => log.level === 'warn')?.message ?? '';
		expect(warning).toMatch(/no longer keeps event evt_forgotten/);
		expect(warning).toMatch(/Harness workflow/);
		expect(warning).toMatch(/may be missing/);
		// Read on: the next poll reports nothing again.
		expect((await trigger.poll()).reported).toEqual([]);
	});

	it('404: the test poll fails with the advice to use Svc Trigger with a public https URL', async () => {
		sandbox().state.eventLog.configure({ enabled: false });
		const trigger = await createSvcPullTrigger(sandbox(), {
			workflowId: `pull-workflow-${++workflowCounter}`,
		});
		await expect(trigger.poll()).rejects.toThrow(
			/no event list.*use Svc Trigger instead.*public https/,
		);
	});

	it('403 names the read scope the key lacks', async () => {
		const key = `svc_test_${'OnlyLeads'.padEnd(24, '0')}`;
		sandbox().state.keys.add({ key, scopes: ['leads:read'] });
		const trigger = await createSvcPullTrigger(sandbox(), {
			apiKey: key,
			events: ['campaign.updated'],
			workflowId: `pull-workflow-${++workflowCounter}`,
		});
		await expect(trigger.poll()).rejects.toThrow(/lacks the scope "campaigns:read"/);
	});

	it("429: publishing does not fail; a later poll fails with n8n's rate-limited cause, and polls within Retry-After send nothing", async () => {
		const trigger = await createSvcPullTrigger(sandbox(), {
			workflowId: `pull-workflow-${++workflowCounter}`,
		});
		sandbox().state.faults.set([
			{ route: 'GET /v1/events', rateLimitedRate: 1, retryAfterSeconds: 0 },
		]);
		clearCapturedLogs();
		expect((await trigger.poll()).returned).toBeNull();
		expect(
			capturedLogs().some(
				(log) =>
					log.level === 'warn' && /could not read the service while publishing/.test(log.message),
			),
		).toBe(true);
		sandbox().state.faults.set([
			{ route: 'GET /v1/events', rateLimitedRate: 1, retryAfterSeconds: 30 },
		]);
		const failure = await trigger.poll().catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(NodeApiError);
		expect((failure as NodeApiError).failure).toEqual({
			cause: 'rate-limited',
			retryAfterMs: 30_000,
		});
		const before = eventRequests();
		expect((await trigger.poll()).returned).toBeNull();
		expect(eventRequests()).toBe(before);
	});

	it("n8n 2.41's durable scheduler: each poll has a context of its own, and only the publish's poll counts as the test poll", async () => {
		// That scheduler's budget on its defaults: 45 s poll timeout less its 9 s margin.
		const durableTick = { budgetMs: 36_000 };
		const trigger = await published();
		const ids = emit(2);
		expect(passedOn(await trigger.poll({ durableTick }))).toEqual(ids.map((id) => [id]));
		// A test poll would only warn about a 429; a scheduled poll fails with n8n's cause.
		sandbox().state.faults.set([
			{ route: 'GET /v1/events', rateLimitedRate: 1, retryAfterSeconds: 0 },
		]);
		const failure = await trigger.poll({ durableTick }).catch((error: unknown) => error);
		expect((failure as NodeApiError).failure?.cause).toBe('rate-limited');
	});

	it.each([
		['one execution per event', {}, (ids: string[]) => ids.map((id) => [id])],
		['in batch mode', { eventsPerExecution: 'batch', batchSize: 100 }, (ids: string[]) => [ids]],
	])(
		"n8n 2.41's durable poll cursors, %s: events created between publishing and the first scheduled poll run, though n8n did not store the publish's position",
		async (_mode, parameters, runs) => {
			const durableTick = { budgetMs: 36_000 };
			const trigger = await published({ durableCursors: true, parameters });
			expect(trigger.staticData).toEqual({});
			const ids = emit(3);
			expect(passedOn(await trigger.poll({ durableTick }))).toEqual(runs(ids));
			// That poll's position is stored: the next reads on from it.
			expect(trigger.staticData.position).toMatchObject({ after: ids[2] });
			const later = emit(1);
			expect(passedOn(await trigger.poll({ durableTick }))).toEqual(runs(later));
		},
	);

	it("n8n 2.41's durable poll cursors: unpublished before the first scheduled poll and published again, the events from meanwhile run", async () => {
		const trigger = await published({ durableCursors: true });
		trigger.activate('activate');
		const ids = emit(2);
		expect(passedOn(await trigger.poll())).toEqual(ids.map((id) => [id]));
		// That test poll started executions, and n8n stored its position with them.
		expect(trigger.staticData.position).toBeDefined();
	});

	describe('in batch mode (Events per Execution: Many)', () => {
		const batches = (batchSize: number) => ({ eventsPerExecution: 'batch', batchSize });

		it('runs the new events of a poll as the items of one execution, each item as one-per-event mode outputs it', async () => {
			const trigger = await published({ parameters: batches(100) });
			const ids = emit(3);
			const result = await trigger.poll();
			expect(passedOn(result)).toEqual([ids]);
			const [items] = result.executions as INodeExecutionData[][];
			const events = sandbox().state.deliveries.listEvents();
			expect(items.map((item) => item.json)).toEqual(
				ids.map((id) => ({
					...events.find((event) => event.id === id),
					meta: { delivery: 'pull', pull_id: expect.any(String) as string },
				})),
			);
			// One pull id names the execution's claim: a Retry carries it.
			expect(new Set(items.map((item) => (item.json.meta as IDataObject).pull_id)).size).toBe(1);
			expect(passedOn(await trigger.poll())).toEqual([]);
		});

		it('fills each batch across pages and starts more executions for more events, oldest first', async () => {
			const trigger = await published({ parameters: batches(20) });
			// Pages of 10: the first batch takes two pages, the last one is short.
			const ids = emitThreePages();
			expect(passedOn(await trigger.poll())).toEqual([ids.slice(0, 20), ids.slice(20)]);
			expect(trigger.staticData.position).toMatchObject({ after: ids[ids.length - 1] });
		});

		/** A published trigger whose executions run on queue-mode workers, as their first answer told it. */
		const publishedOnWorkers = async (batchSize: number): Promise<PollHarness> => {
			const trigger = await published({ parameters: batches(batchSize) });
			const ids = emit(1);
			expect(passedOn(await trigger.poll({ onWorkers: true }))).toEqual([ids]);
			return trigger;
		};

		it('in queue mode, about 800 events claim at once, in whole batches: eight batches of 100, and the ninth starts as the first ends', async () => {
			const trigger = await publishedOnWorkers(100);
			const ids = emit(900);
			const before = eventRequests();
			let release = () => {};
			const answersHeldUntil = new Promise<void>((resolve) => (release = resolve));
			const polling = trigger.poll({ answersHeldUntil, onWorkers: true });
			await until('eight batches to start', () => trigger.started === 8);
			// Nothing has answered: eight pages read, eight executions, the ninth page not read yet.
			expect(eventRequests() - before).toBe(8);
			release();
			const result = await polling;
			expect(passedOn(result)).toEqual(
				Array.from({ length: 9 }, (_, n) => ids.slice(100 * n, 100 * n + 100)),
			);
		});

		it('in regular mode, a batch starts once the one before has claimed: with answers held, one batch at a time', async () => {
			const trigger = await published({ parameters: batches(100) });
			const ids = emit(300);
			const before = eventRequests();
			let release = () => {};
			const answersHeldUntil = new Promise<void>((resolve) => (release = resolve));
			const polling = trigger.poll({ answersHeldUntil });
			await until('the first batch to start', () => trigger.started === 1);
			// Three pages are read ahead, and no second batch starts before the first has claimed.
			await until('three pages to be read', () => eventRequests() - before === 3);
			expect(trigger.started).toBe(1);
			release();
			expect(passedOn(await polling)).toEqual(
				[0, 1, 2].map((n) => ids.slice(100 * n, 100 * n + 100)),
			);
		});

		it('in queue mode, at most eight runs of 100 unfinished at once, however soon their claims stand: a crash cuts short at most those', async () => {
			const trigger = await publishedOnWorkers(100);
			const ids = emit(1_000);
			// Each run's work after the trigger outlasts its claim.
			const result = await trigger.poll({ workMs: 300, onWorkers: true });
			expect(passedOn(result).flat()).toEqual(ids);
			expect(result.executions).toHaveLength(10);
			expect(result.peakUnfinished).toBe(8);
		});

		it('in queue mode, small batches: as many claim at once as make about 800 events (batches of 5: all 25 events at once)', async () => {
			const trigger = await publishedOnWorkers(5);
			const ids = emit(25);
			let release = () => {};
			const answersHeldUntil = new Promise<void>((resolve) => (release = resolve));
			const polling = trigger.poll({ answersHeldUntil, onWorkers: true });
			await until('five batches to start', () => trigger.started === 5);
			release();
			expect(passedOn(await polling)).toEqual(
				Array.from({ length: 5 }, (_, n) => ids.slice(5 * n, 5 * n + 5)),
			);
		});

		it('events another execution ran are left out of the batch; a batch of repeats passes nothing', async () => {
			const trigger = await published({ parameters: batches(100) });
			const first = emit(3);
			expect(passedOn(await trigger.poll())).toEqual([first]);
			// n8n restarted with the position stored before that run: the three are read again.
			trigger.restart(await freshPullTrigger());
			expect(passedOn(await trigger.poll())).toEqual([[]]);
			trigger.restart(await freshPullTrigger());
			const more = emit(2);
			expect(passedOn(await trigger.poll())).toEqual([more]);
		});

		it('a restart while batches drain: each batch starts once the one before has claimed, so n8n stored the position past all but the last, and one batch of repeats at most is read again', async () => {
			const trigger = await published({ parameters: batches(10) });
			const ids = emit(95);
			expect(passedOn(await trigger.poll({ workMs: 50 })).flat()).toEqual(ids);
			trigger.restart(await freshPullTrigger());
			expect(passedOn(await trigger.poll())).toEqual([[]]);
		});

		it("on queue-mode workers, a batch n8n 2.x ended without its data starts again whole under its pull id, held for a person's Retry, which runs it", async () => {
			const trigger = await published({ parameters: batches(10) });
			const ids = emit(15);
			const result = await trigger.poll({ onWorkers: true, lostRuns: 1 });
			expect(result.lost.map((items) => items.map((item) => item.json.id))).toEqual([
				ids.slice(0, 10),
			]);
			const outcomes = result.executions.map((execution) =>
				Array.isArray(execution) ? execution.map((item) => item.json.id) : execution.message,
			);
			expect(outcomes).toEqual([
				expect.stringMatching(/ended without its data$/),
				ids.slice(10),
				expect.stringMatching(
					new RegExp(
						`^n8n ended the execution that had these events \\(\\d+\\) without its data when the worker running it stopped, and this execution took them over, so event ${ids.slice(0, 10).join(', ')} may already have run past the trigger$`,
					),
				),
			]);
			const restartedItems = result.lost[0].map((item) => ({
				json: { ...item.json, meta: { ...(item.json.meta as IDataObject), lost_run: {} } },
			}));
			expect((await trigger.retry(restartedItems)).map((item) => item.json.id)).toEqual(
				ids.slice(0, 10),
			);
		});

		it('the position never passes a batch n8n did not store; a Retry of a batch runs the events it had claimed', async () => {
			const trigger = await published({ parameters: batches(100) });
			const ids = emit(2);
			expect((await trigger.poll({ executions: 'notStored' })).executions).toEqual([]);
			const [batch] = (await trigger.poll()).executions as INodeExecutionData[][];
			expect(batch.map((item) => item.json.id)).toEqual(ids);
			expect((await trigger.retry(batch)).map((item) => item.json.id)).toEqual(ids);
			const copy = batch.map((item) => ({
				json: { ...item.json, meta: { delivery: 'pull', pull_id: 'another' } },
			}));
			expect(await trigger.retry(copy)).toEqual([]);
		});

		it('beside Svc Trigger in one workflow: an event the webhook ran is left out of the batch, the rest run', async () => {
			const { pull, webhook, deliveryOf } = await bothTriggers(batches(100));
			const ids = emit(3);
			const first = await webhook.deliver(deliveryOf(ids[1]));
			expect(first.passedOn?.map((item) => item.json.id)).toEqual([ids[1]]);
			expect(passedOn(await pull.poll())).toEqual([[ids[0], ids[2]]]);
		});

		it('Fetch Test Event shows what a run would get: the newest events, up to Batch Size, oldest first', async () => {
			const trigger = await published({ parameters: batches(3) });
			const ids = emit(5);
			const shown = await trigger.fetchTestEvent();
			expect(shown.map((item) => item.json.id)).toEqual(ids.slice(2));
			expect(shown[0].json.meta).toEqual({ delivery: 'pull', test: true });
			// One per event shows the newest one.
			const single = await published();
			expect((await single.fetchTestEvent()).map((item) => item.json.id)).toEqual([ids[4]]);
		});

		it('a Batch Size out of range fails the poll with what to set', async () => {
			const trigger = await createSvcPullTrigger(sandbox(), {
				workflowId: `pull-workflow-${++workflowCounter}`,
				parameters: batches(0),
			});
			await expect(trigger.poll()).rejects.toThrow(
				/Batch Size must be a whole number from 1 to 1000; got 0/,
			);
		});
	});
});
