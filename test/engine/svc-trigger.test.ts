/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- throwaway test values, not secrets */
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { IDataObject, INodeExecutionData, INodeType } from 'n8n-workflow';
import { Webhook } from 'standardwebhooks';

import type { Sandbox } from '../../sandbox';
import { startSandbox } from '../../sandbox';
import { upsertLead } from '../../sandbox/operations';
import { makeLocalCa } from '../../harness/local-ca';
import type { LocalCa } from '../../harness/local-ca';
import type {
	Delivery,
	DeliveryResult,
	RecordedResponse,
	TriggerHarness,
} from '../../harness/engine';
import { signedDelivery } from '../../harness/engine/webhook-http';
import { capturedLogs, shutdownEngine } from '../../harness/engine';
import type { SvcTriggerOptions } from '../../harness/engine/svc';
import { createSvcTrigger, FULL_KEY } from '../../harness/engine/svc';
import { processedData } from '../../harness/engine/processed-data';
import { loadedAnew } from '../../harness/engine/loaded-anew';
import { sleep, until } from '../../harness/wait';
import { UNFINISHED_EXECUTIONS_MAX } from '../../nodes/Svc/trigger/exactlyOnce/executionSlots';
import { CLAIMED_EVENTS_HEADER } from '../../nodes/Svc/trigger/webhook/claimsReport';

let sandbox: Sandbox;
let tls: LocalCa;
let tlsDir: string;
let receiver: Server;
let receiverBase: string;
/** Where the https receiver hands deliveries: the trigger of the current test. */
let current: TriggerHarness | undefined;
/** Every delivery the receiver passed to the trigger, and what the trigger made of it. */
let delivered: DeliveryResult[] = [];
/** Set to make the receiver hold its answer longer than the sandbox waits. */
let answerDelayMs = 0;

beforeAll(async () => {
	tlsDir = await mkdtemp(join(tmpdir(), 'svc-trigger-tls-'));
	tls = await makeLocalCa(tlsDir);
	sandbox = await startSandbox({
		allowLoopbackWebhooks: true,
		trustedCa: tls.caPem,
		delivery: { timeoutMs: 400, retryDelaysMs: [50, 100, 200] },
	});
	// Stands in for n8n's webhook server: raw body and headers in, the node's answer out.
	const { readFileSync } = await import('node:fs');
	receiver = createServer(
		{ key: readFileSync(tls.keyPath), cert: readFileSync(tls.certPath) },
		(req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				void (async () => {
					// A delivery belongs to the test whose trigger took it: one that ends after its test does
					// (a retry's run still claiming) is not counted in the next test's deliveries.
					const handler = current;
					if (!handler) {
						res.writeHead(404).end();
						return;
					}
					// As n8n does: the answer goes out when the node gives it, from inside the execution too,
					// before the execution ends.
					const result = await handler.deliver({
						method: 'POST',
						headers: req.headers as Record<string, string>,
						rawBody: Buffer.concat(chunks),
						onAnswer: (response) => {
							void (async () => {
								if (answerDelayMs > 0) await sleep(answerDelayMs);
								res
									.writeHead(response.statusCode, { 'content-type': 'application/json' })
									.end(JSON.stringify(response.body ?? {}));
							})();
						},
					});
					if (handler === current) delivered.push(result);
					if (!result.response) res.writeHead(500).end('{"error":"the delivery was not answered"}');
				})();
			});
		},
	);
	await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
	receiverBase = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhook`;
});

afterEach(() => {
	current = undefined;
	delivered = [];
	answerDelayMs = 0;
	sandbox.state.reset();
});

afterAll(async () => {
	await sandbox.close();
	receiver.closeAllConnections();
	await new Promise((resolve) => receiver.close(resolve));
	await rm(tlsDir, { recursive: true, force: true });
	await shutdownEngine();
});

/** The trigger as a restarted n8n loads it: nothing of the killed process's memory. */
const freshSvcTrigger = async (): Promise<INodeType> =>
	await loadedAnew(async () => new (await import('../../nodes/Svc/SvcTrigger.node')).SvcTrigger());

async function trigger(options: SvcTriggerOptions = {}): Promise<TriggerHarness> {
	current = await createSvcTrigger(sandbox, { webhookBaseUrl: receiverBase, ...options });
	return current;
}

function subscriptions() {
	return [...sandbox.state.store.subscriptions.values()];
}

/** The subscription the trigger stored, with its signing secret as the service issued it. */
function stored(t: TriggerHarness): { id: string; secret: string; sealedSecret: string } {
	const subscription = t.staticData.subscription as { id: string; sealedSecret: string };
	return {
		...subscription,
		secret: sandbox.state.store.subscriptions.get(subscription.id)?.secret ?? '',
	};
}

/** A lead.created event `id`, delivered signed with `secret` as the service sends it. */
function signed(secret: string, id: string): Delivery {
	return signedDelivery(secret, {
		id,
		type: 'lead.created',
		created_at: new Date().toISOString(),
		data: { id: 'lead_0001' },
	});
}

/** Deliveries whose event the trigger passed on to the rest of the workflow. */
const started = () => delivered.filter((result) => (result.passedOn?.length ?? 0) > 0);

describe('subscription lifecycle', () => {
	it('activation creates exactly one subscription with the webhook URL and events; deactivation deletes it', async () => {
		const t = await trigger({ events: ['lead.created', 'campaign.updated'] });
		expect(await t.activate()).toBe(true);
		expect(subscriptions()).toEqual([
			expect.objectContaining({ url: t.webhookUrl, events: ['lead.created', 'campaign.updated'] }),
		]);
		expect(stored(t).id).toBe(subscriptions()[0].id);
		expect(stored(t).secret).toMatch(/^whsec_/);
		// Static data holds the secret only sealed: not as issued, not its key bytes.
		expect(stored(t).sealedSecret).toMatch(/^v1\./);
		expect(JSON.stringify(t.staticData)).not.toContain(stored(t).secret.slice(6));
		const [create] = sandbox.state.requests
			.all()
			.filter((request) => request.route === 'POST /v1/webhook-subscriptions');
		expect(create.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);

		expect(await t.activate()).toBe(false);
		expect(subscriptions()).toHaveLength(1);

		expect(await t.delete()).toBe(true);
		expect(subscriptions()).toHaveLength(0);
		expect(t.staticData.subscription).toBeUndefined();
		expect(await t.delete()).toBe(true);
	});

	it('a subscription deleted on the service is forgotten and created again', async () => {
		const t = await trigger();
		await t.activate();
		sandbox.state.store.subscriptions.delete(stored(t).id);
		expect(await t.checkExists()).toBe(false);
		expect(t.staticData.subscription).toBeUndefined();
		await t.create();
		expect(subscriptions()).toHaveLength(1);
	});

	it('after static data loss the orphan at this URL is deleted and replaced: never two live', async () => {
		const t = await trigger();
		await t.activate();
		const orphan = stored(t).id;
		for (const key of Object.keys(t.staticData)) delete t.staticData[key];
		expect(await t.activate()).toBe(true);
		expect(subscriptions()).toHaveLength(1);
		expect(subscriptions()[0].id).not.toBe(orphan);
		expect(stored(t).id).toBe(subscriptions()[0].id);
	});

	it('changed events replace the subscription', async () => {
		const t = await trigger({ events: ['lead.created'] });
		await t.activate();
		const changed = await trigger({ events: ['campaign.updated'], webhookId: t.node.webhookId });
		for (const [key, value] of Object.entries(t.staticData)) changed.staticData[key] = value;
		expect(await changed.activate()).toBe(true);
		expect(subscriptions()).toEqual([
			expect.objectContaining({ url: t.webhookUrl, events: ['campaign.updated'] }),
		]);
	});

	it('never touches subscriptions at other URLs', async () => {
		sandbox.state.store.subscriptions.set({
			id: 'sub_other',
			url: 'https://elsewhere.example.com/hook',
			events: ['lead.created'],
			created_at: sandbox.state.now(),
			secret: 'whsec_b3RoZXItc2VjcmV0LW9mLWxlbmd0aA==',
		});
		const t = await trigger();
		await t.activate();
		for (const key of Object.keys(t.staticData)) delete t.staticData[key];
		await t.activate();
		await t.delete();
		expect(subscriptions().map((subscription) => subscription.id)).toEqual(['sub_other']);
	});

	it('refuses an http webhook URL, saying how to set the public https address', async () => {
		const t = await trigger({ webhookBaseUrl: 'http://localhost:5678/webhook' });
		await expect(t.activate()).rejects.toThrow(/only to https URLs/);
		await expect(t.create()).rejects.toMatchObject({
			message: expect.stringContaining(
				'Set WEBHOOK_URL to the public https address of this n8n',
			) as unknown,
		});
		expect(subscriptions()).toHaveLength(0);
	});

	it.each([
		[
			'an http webhook URL',
			{ webhookBaseUrl: 'http://localhost:5678/webhook' },
			/only to https URLs/,
		],
		['a malformed API key', { apiKey: 'svc_live_short' }, /not in an accepted format/],
		[
			'a key without webhooks:write',
			{ apiKey: 'svc_test_ReadOnlyDemoKey000000002' },
			/lacks the scope "webhooks:write"/,
		],
		[
			'an unknown key',
			{ apiKey: 'svc_live_RevokedOrNeverIssued000001' },
			/invalid, revoked or mistyped/,
		],
	])(
		"%s is the user's to fix: n8n's warning level, not reported as a crash",
		async (_, options, message) => {
			const t = await trigger(options);
			const error = await t.activate().then(
				() => undefined,
				(thrown: unknown) => thrown,
			);
			expect(error).toMatchObject({
				message: expect.stringMatching(message) as unknown,
				level: 'warning',
				shouldReport: false,
			});
		},
	);
});

describe('deliveries signed by the sandbox', () => {
	it('lead.created starts the workflow once with the event; a re-delivery starts nothing', async () => {
		const t = await trigger();
		await t.activate();
		const { lead } = upsertLead(sandbox.state, { email: 'fresh@example.com', first_name: 'Fresh' });
		await until('the event to run', () => started().length > 0, { everyMs: 10, timeoutMs: 10_000 });
		// On a loaded machine the answer can come after the sandbox's 400 ms: its retries are over
		// once it is idle, and none of them may have started the event again.
		await sandbox.state.waitForDeliveries();
		expect(started()).toHaveLength(1);
		const item = started()[0].passedOn?.[0].json as IDataObject;
		expect(item).toMatchObject({
			type: 'lead.created',
			data: { id: lead.id, email: 'fresh@example.com' },
			meta: { verified: true },
		});
		expect((item.meta as IDataObject).webhook_id).toBe(item.id);

		const before = delivered.length;
		sandbox.state.deliveries.redeliver(item.id as string);
		await until(
			'the re-delivery answered as a duplicate',
			() =>
				delivered
					.slice(before)
					.some(
						(result) =>
							result.response?.statusCode === 200 &&
							(result.response.body as IDataObject | undefined)?.duplicate === true,
					),
			{ everyMs: 10, timeoutMs: 10_000 },
		);
		expect(started()).toHaveLength(1);
	});

	it("the sandbox's own retry of a delivery it thought failed starts nothing more", async () => {
		const t = await trigger();
		await t.activate();
		answerDelayMs = 600;
		upsertLead(sandbox.state, { email: 'slow@example.com' });
		await until('two deliveries', () => delivered.length >= 2, { everyMs: 10, timeoutMs: 15_000 });
		answerDelayMs = 0;
		await sandbox.state.waitForDeliveries();
		const attempts = sandbox.state.deliveries.attempts();
		// An answer goes out before the run's claim settles: wait for every attempt's run to end.
		await until('every attempt ran', () => delivered.length >= attempts.length, {
			everyMs: 10,
			timeoutMs: 15_000,
		});
		expect(attempts.length).toBeGreaterThanOrEqual(2);
		expect(new Set(attempts.map((attempt) => attempt.webhookId)).size).toBe(1);
		expect(started()).toHaveLength(1);
	});

	it('events this trigger did not subscribe to are acknowledged and start nothing', async () => {
		const t = await trigger({ events: ['lead.created'] });
		await t.activate();
		// A subscription that asks for more kinds, at the same URL, is what a wider one would send.
		sandbox.state.store.subscriptions.set({
			...sandbox.state.store.subscriptions.get(stored(t).id)!,
			events: ['lead.created', 'campaign.updated'],
		});
		sandbox.state.deliveries.emit('campaign.updated', { id: 'cmp_0001' });
		await until('one delivery', () => delivered.length > 0, { everyMs: 10, timeoutMs: 10_000 });
		// A retry, if a loaded machine answered late, is answered the same way.
		await sandbox.state.waitForDeliveries();
		for (const result of delivered)
			expect(result.response).toMatchObject({
				statusCode: 200,
				body: { received: true, ignored: true },
			});
		expect(started()).toHaveLength(0);
	});
});

describe('acknowledged only once n8n stored the execution, and run once', () => {
	/** n8n's processed-data row of the trigger's workflow (workflow scope, shared by its Svc triggers). */
	const row = (t: TriggerHarness) => processedData.rows.get(`${t.workflowId} `) ?? [];
	/** The receipt id the trigger gave a delivery's item: the name of its execution's claim. */
	const receiptOf = (workflowData: INodeExecutionData[][]): string => {
		const receipt = (workflowData[0]?.[0]?.json.meta as IDataObject | undefined)?.receipt_id;
		if (typeof receipt !== 'string') throw new Error('the delivery gave its item no receipt id');
		return receipt;
	};

	it("webhook() answers nothing for a new event: the execution answers 200, then claims the event in n8n's record", async () => {
		const t = await trigger();
		await t.activate();
		const result = await t.deliver(signed(stored(t).secret, 'evt_stored_1'));
		expect(result.webhookResponse).toEqual({
			workflowData: [
				[
					expect.objectContaining({
						json: expect.objectContaining({ id: 'evt_stored_1' }) as unknown,
					}),
				],
			],
		});
		expect(result.response).toEqual({ statusCode: 200, headers: {}, body: { received: true } });
		expect(result.passedOn).toHaveLength(1);
		expect(row(t)).toContain('event evt_stored_1');
	});

	it("an event already in n8n's record (run by another process, or before a restart) is answered 200 and stops at the trigger", async () => {
		const t = await trigger();
		await t.activate();
		await t.deliver(signed(stored(t).secret, 'evt_elsewhere_0'));
		// What another process's claim leaves in the shared row.
		row(t).push('event evt_elsewhere_1', 'claim 7f9c1b52-0d55-4c49-9a56-0d7a3d1e2f11');
		const result = await t.deliver(signed(stored(t).secret, 'evt_elsewhere_1'));
		expect(result.workflowData?.[0]).toHaveLength(1);
		expect(result.response).toMatchObject({ statusCode: 200 });
		expect(result.passedOn).toEqual([]);
		// Known in this process now: the next copy costs no execution.
		const again = await t.deliver(signed(stored(t).secret, 'evt_elsewhere_1'));
		expect(again.workflowData).toBeUndefined();
		expect(again.response).toMatchObject({
			statusCode: 200,
			body: { received: true, duplicate: true },
		});
	});

	it("queue mode: a worker's answer to a delivery received at a webhook processor names the events whose claims stood on that worker; an answer in one process names none", async () => {
		const t = await trigger();
		await t.activate();
		const inOneProcess = await t.deliver(signed(stored(t).secret, 'evt_one_process'));
		expect(inOneProcess.response?.headers).not.toHaveProperty(CLAIMED_EVENTS_HEADER);
		// Received at the webhook processor, run by a worker: another process, with none of its memory.
		const received = [];
		for (const id of ['evt_queued_1', 'evt_queued_2', 'evt_queued_3'])
			received.push((await t.receive(signed(stored(t).secret, id))).workflowData ?? []);
		t.restart(await freshSvcTrigger());
		const reported: unknown[] = [];
		for (const workflowData of received)
			await t.runAgain(workflowData, {
				mode: 'webhook',
				onAnswer: (answer) => reported.push(answer.headers[CLAIMED_EVENTS_HEADER]),
			});
		// Each answer goes out before its own claim: it names the claims made before it, newest first.
		expect(reported).toEqual([undefined, 'evt_queued_1', 'evt_queued_2,evt_queued_1']);
	});

	it('the same execution started again after its process died (n8n 1.x queue mode) fails with the event kept, and runs nothing past the trigger', async () => {
		const t = await trigger();
		await t.activate();
		// What n8n stored for execution 'exec-rerun-7', and what its first run left in the row
		// before its worker was killed: the claim, under the receipt's id.
		// n8n's row exists once a first event was claimed.
		await t.deliver(signed(stored(t).secret, 'evt_rerun_0'));
		const { workflowData = [] } = await t.receive(signed(stored(t).secret, 'evt_rerun'));
		row(t).push('event evt_rerun', `claim evt_rerun ${receiptOf(workflowData)}`);
		const answers: RecordedResponse[] = [];
		await expect(
			t.runAgain(workflowData, {
				mode: 'webhook',
				executionId: 'exec-rerun-7',
				onAnswer: (answer) => answers.push(answer),
			}),
		).rejects.toMatchObject({
			message:
				'n8n started this execution again after the process running it stopped, so event evt_rerun may already have run past the trigger',
		});
		expect(answers.map((answer) => answer.statusCode)).toEqual([200]);
		// Another execution of the same event is a repeat, as before.
		row(t).push('event evt_rerun_2', 'claim evt_rerun_2 3d0c9a8e-5b7f-4e21-9c64-1f2a7b8d9e03');
		expect(
			(await t.deliver({ ...signed(stored(t).secret, 'evt_rerun_2'), executionId: 'exec-other-9' }))
				.passedOn,
		).toEqual([]);
	});

	it("a person's Retry of each run a kill cut short: the event runs once, whichever runs held it", async () => {
		const t = await trigger();
		await t.activate();
		// Two stored runs hold the event (the service delivered it again once n8n had restarted, or to
		// another webhook processor), and kills cut both short before either claimed it.
		const first = await t.receive(signed(stored(t).secret, 'evt_cut_twice'));
		t.restart(await freshSvcTrigger());
		const second = await t.receive(signed(stored(t).secret, 'evt_cut_twice'));
		t.restart(await freshSvcTrigger());
		expect(receiptOf(first.workflowData ?? [])).not.toEqual(receiptOf(second.workflowData ?? []));
		const retried = [
			await t.runAgain(first.workflowData ?? [], { mode: 'retry' }),
			await t.runAgain(second.workflowData ?? [], { mode: 'retry' }),
		];
		expect(retried.map((passed) => passed.map((item) => item.json.id))).toEqual([
			['evt_cut_twice'],
			[],
		]);
		// A Retry of the first again: its own claim, so it runs (a person retries what did not finish).
		expect(await t.runAgain(first.workflowData ?? [], { mode: 'retry' })).toHaveLength(1);
	});

	it("a person's Retry of a run cut short after its claim runs the event; one whose event ran elsewhere stops at the trigger", async () => {
		const t = await trigger();
		await t.activate();
		await t.deliver(signed(stored(t).secret, 'evt_claimed_0'));
		const cut = await t.receive(signed(stored(t).secret, 'evt_claimed_then_cut'));
		row(t).push(
			'event evt_claimed_then_cut',
			`claim evt_claimed_then_cut ${receiptOf(cut.workflowData ?? [])}`,
		);
		expect(await t.runAgain(cut.workflowData ?? [], { mode: 'retry' })).toHaveLength(1);
		// Stored, cut short, and then the service's next delivery of the same event ran it.
		const stranded = await t.receive(signed(stored(t).secret, 'evt_ran_later'));
		t.restart(await freshSvcTrigger());
		expect((await t.deliver(signed(stored(t).secret, 'evt_ran_later'))).passedOn).toHaveLength(1);
		expect(await t.runAgain(stranded.workflowData ?? [], { mode: 'retry' })).toEqual([]);
	});

	it("a copy delivered while the first copy's execution has not answered (n8n busy): 503 with Retry-After and no execution; once that one ran, the next copy is 200 duplicate", async () => {
		const t = await trigger();
		await t.activate();
		// A delivery run to its end: receipts settle in this process (n8n's regular mode).
		await t.deliver(signed(stored(t).secret, 'evt_busy_before'));
		const first = await t.receive(signed(stored(t).secret, 'evt_busy'));
		const copy = await t.deliver(signed(stored(t).secret, 'evt_busy'));
		expect(copy.response?.statusCode).toBe(503);
		expect(copy.response?.headers['retry-after']).toBe('5');
		expect(copy.workflowData).toBeUndefined();
		const ran = await t.runAgain(first.workflowData ?? [], { mode: 'webhook' });
		expect(ran.map((item) => item.json.id)).toEqual(['evt_busy']);
		const later = await t.deliver(signed(stored(t).secret, 'evt_busy'));
		expect(later.response?.body).toEqual({ received: true, duplicate: true });
		expect(later.workflowData).toBeUndefined();
	});

	it('two copies of an event arriving at the same instant: one execution runs it, the other copy passes nothing on, and a later copy is 200 duplicate with no execution', async () => {
		const t = await trigger();
		await t.activate();
		const results = await Promise.all([
			t.deliver(signed(stored(t).secret, 'evt_twin')),
			t.deliver(signed(stored(t).secret, 'evt_twin')),
		]);
		const statuses = results.map((result) => result.response?.statusCode);
		expect(statuses).toContain(200);
		expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
		expect(results.map((result) => result.passedOn?.length ?? 0).sort()).toEqual([0, 1]);
		const again = await t.deliver(signed(stored(t).secret, 'evt_twin'));
		expect(again.response?.body).toEqual({ received: true, duplicate: true });
		expect(again.workflowData).toBeUndefined();
	});

	it('at most 20 answered executions unfinished at once: another delivery is answered 503 after 3 s with no room, starting no execution, 200 once one ends, and its event runs once', async () => {
		const t = await trigger();
		await t.activate();
		const { secret } = stored(t);
		const answers = new Map<string, number[]>();
		const deliver = (id: string, ends: Promise<unknown>) =>
			t.deliver({
				...signed(secret, id),
				ends,
				onAnswer: (response) => answers.set(id, [...(answers.get(id) ?? []), response.statusCode]),
			});
		const releases: Array<() => void> = [];
		const unfinished = Array.from({ length: UNFINISHED_EXECUTIONS_MAX }, (_, index) =>
			deliver(`evt_room_${index}`, new Promise<void>((resolve) => releases.push(resolve))),
		);
		await until('every unfinished execution answered', () => answers.size === unfinished.length);

		// No room: the service is told to send it again, and no execution is spent on it.
		const refused = await deliver('evt_room_late', Promise.resolve());
		expect(refused.response?.statusCode).toBe(503);
		expect(refused.response?.headers['retry-after']).toBe('8');
		expect(refused.workflowData).toBeUndefined();
		// Sent again once an execution ended: answered 200 and run.
		releases[0]();
		const sentAgain = await deliver('evt_room_late', Promise.resolve());
		expect(sentAgain.response?.statusCode).toBe(200);
		expect(sentAgain.passedOn).toHaveLength(1);

		releases.forEach((release) => release());
		const results = await Promise.all(unfinished);
		expect(results.map((result) => result.passedOn?.length)).toEqual(unfinished.map(() => 1));
		expect(answers.get('evt_room_late')).toEqual([503, 200]);
		expect([...answers.values()].flat().filter((status) => status === 200)).toHaveLength(
			UNFINISHED_EXECUTIONS_MAX + 1,
		);
	});

	it("n8n's regular mode: a delivery's room is taken when it is received, so executions n8n starts late, behind later deliveries, are each answered 200 and none stops at the trigger with a 503", async () => {
		const t = await trigger();
		await t.activate();
		const { secret } = stored(t);
		// A delivery run to its end: receipts settle in this process (n8n's regular mode).
		await t.deliver(signed(secret, 'evt_late_before'));
		// n8n is busy: it stored 20 executions and has started none of them yet.
		const stored20 = await Promise.all(
			Array.from({ length: UNFINISHED_EXECUTIONS_MAX }, (_, index) =>
				t.receive(signed(secret, `evt_late_${index}`)),
			),
		);
		expect(stored20.every((received) => received.workflowData !== undefined)).toBe(true);
		const refused = await t.deliver(signed(secret, 'evt_late_next'));
		expect(refused.response?.statusCode).toBe(503);
		expect(refused.workflowData).toBeUndefined();

		const answers: number[] = [];
		const passedOn = await Promise.all(
			stored20.map(
				async (received) =>
					await t.runAgain(received.workflowData ?? [], {
						mode: 'webhook',
						onAnswer: (response) => answers.push(response.statusCode),
					}),
			),
		);
		expect(answers).toEqual(stored20.map(() => 200));
		expect(passedOn.map((items) => items.length)).toEqual(stored20.map(() => 1));
		const sentAgain = await t.deliver(signed(secret, 'evt_late_next'));
		expect(sentAgain.response?.statusCode).toBe(200);
		expect(sentAgain.passedOn).toHaveLength(1);
	});

	it('a test listen from the editor is answered from its execution and claims nothing', async () => {
		const published = await trigger();
		await published.activate();
		const listening = await trigger({
			mode: 'manual',
			webhookId: published.node.webhookId,
			workflowId: published.workflowId,
		});
		for (const [key, value] of Object.entries(published.staticData))
			listening.staticData[key] = value;
		const first = await listening.deliver(signed(stored(published).secret, 'evt_listen'));
		expect(first.response).toEqual({ statusCode: 200, headers: {}, body: { received: true } });
		expect(first.passedOn).toHaveLength(1);
		expect(row(published)).toEqual([]);
		// The published workflow still runs the same event: the editor's copy is not its repeat.
		expect(
			(await published.deliver(signed(stored(published).secret, 'evt_listen'))).passedOn,
		).toHaveLength(1);
	});
});

describe('bad deliveries start nothing', () => {
	let t: TriggerHarness;
	const now = () => Math.floor(Date.now() / 1000);
	const event = (id = 'evt_bad_1', type = 'lead.created') =>
		JSON.stringify({ id, type, created_at: '2026-11-22T00:00:00Z', data: { id: 'lead_0001' } });

	function sign(body: string, options: { id?: string; timestamp?: number; secret?: string } = {}) {
		const id = options.id ?? 'evt_bad_1';
		const timestamp = options.timestamp ?? now();
		const signature = new Webhook(options.secret ?? stored(t).secret).sign(
			id,
			new Date(timestamp * 1000),
			body,
		);
		return {
			'content-type': 'application/json',
			'webhook-id': id,
			'webhook-timestamp': String(timestamp),
			'webhook-signature': signature,
		};
	}

	beforeEach(async () => {
		t = await trigger();
		await t.activate();
	});

	const wrongSecret = 'whsec_' + Buffer.from('a different secret than stored!').toString('base64');
	const cases: Array<[string, () => { headers: Record<string, string>; body: string }, number]> = [
		[
			'no signature headers',
			() => ({ headers: { 'content-type': 'application/json' }, body: event() }),
			401,
		],
		[
			'a truncated signature',
			() => {
				const headers = sign(event());
				return {
					headers: { ...headers, 'webhook-signature': headers['webhook-signature'].slice(0, 30) },
					body: event(),
				};
			},
			401,
		],
		[
			'a wrong secret',
			() => ({ headers: sign(event(), { secret: wrongSecret }), body: event() }),
			401,
		],
		[
			'a stale timestamp',
			() => ({ headers: sign(event(), { timestamp: now() - 600 }), body: event() }),
			401,
		],
		[
			'a future timestamp',
			() => ({ headers: sign(event(), { timestamp: now() + 600 }), body: event() }),
			401,
		],
		[
			'a tampered body',
			() => ({ headers: sign(event()), body: event().replace('lead_0001', 'lead_0002') }),
			401,
		],
		[
			're-ordered JSON keys',
			() => ({
				headers: sign(event()),
				body: JSON.stringify({
					type: 'lead.created',
					id: 'evt_bad_1',
					created_at: '2026-11-22T00:00:00Z',
					data: { id: 'lead_0001' },
				}),
			}),
			401,
		],
		['an empty body', () => ({ headers: sign(event()), body: '' }), 401],
		[
			'signed malformed JSON',
			() => ({ headers: sign('{"id": "evt_bad_1", '), body: '{"id": "evt_bad_1", ' }),
			400,
		],
		[
			'signed JSON that is not an event',
			() => ({ headers: sign('[1,2,3]'), body: '[1,2,3]' }),
			400,
		],
		[
			'a valid signature but Content-Type text/plain',
			() => ({ headers: { ...sign(event()), 'content-type': 'text/plain' }, body: event() }),
			415,
		],
		[
			'no Content-Type at all',
			() => {
				const headers: Record<string, string> = sign(event());
				delete headers['content-type'];
				return { headers, body: event() };
			},
			415,
		],
		[
			'a body over 1 MiB, even signed',
			() => {
				const big = JSON.stringify({
					id: 'evt_bad_1',
					type: 'lead.created',
					created_at: '2026-11-22T00:00:00Z',
					data: { pad: 'x'.repeat(1024 * 1024) },
				});
				return { headers: sign(big), body: big };
			},
			413,
		],
		[
			'an event id that differs from webhook-id',
			() => ({ headers: sign(event('evt_other')), body: event('evt_other') }),
			400,
		],
	];

	it.each(cases)('%s', async (_name, make, status) => {
		const { headers, body } = make();
		const result = await t.deliver({ method: 'POST', headers, rawBody: body });
		expect(result.workflowData).toBeUndefined();
		expect(result.response?.statusCode).toBe(status);
		const answer = JSON.stringify(result.response?.body);
		expect(answer).not.toContain(stored(t).secret.slice(6));
	});

	it('a valid delivery after all those runs once, and the secret never reached a log line', async () => {
		const ok = await t.deliver({ method: 'POST', headers: sign(event()), rawBody: event() });
		expect(ok.passedOn).toHaveLength(1);
		const again = await t.deliver({ method: 'POST', headers: sign(event()), rawBody: event() });
		expect(again.workflowData).toBeUndefined();
		const logs = capturedLogs()
			.map((line) => line.text)
			.join('\n');
		expect(logs).not.toContain(stored(t).secret.slice(6));
		expect(logs).not.toContain(FULL_KEY);
	});

	it('Include Headers adds the delivery headers to the output', async () => {
		const withHeaders = await trigger({ includeHeaders: true });
		await withHeaders.activate();
		const { secret } = stored(withHeaders);
		const body = event('evt_headers');
		// One timestamp for the header and the signature: two reads can straddle a second.
		const timestamp = now();
		const signature = new Webhook(secret).sign('evt_headers', new Date(timestamp * 1000), body);
		const result = await withHeaders.deliver({
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				'webhook-id': 'evt_headers',
				'webhook-timestamp': String(timestamp),
				'webhook-signature': signature,
			},
			rawBody: body,
		});
		expect((result.workflowData?.[0][0].json.headers as IDataObject)['webhook-id']).toBe(
			'evt_headers',
		);
	});
});

describe('the signing secret sealed under the API key', () => {
	const ROTATED_KEY = 'svc_live_LiveFormatDemoKey0000005';
	/** The same trigger node and static data, with another API key in its credential. */
	async function withKey(t: TriggerHarness, apiKey: string): Promise<TriggerHarness> {
		const rotated = await trigger({
			apiKey,
			webhookId: t.node.webhookId,
			workflowId: t.workflowId,
		});
		for (const [key, value] of Object.entries(t.staticData)) rotated.staticData[key] = value;
		return rotated;
	}

	it('after the key is changed, deliveries get 503 and a log line saying what to do; publishing again subscribes anew', async () => {
		const t = await trigger();
		await t.activate();
		const before = stored(t);
		const rotated = await withKey(t, ROTATED_KEY);

		const refused = await rotated.deliver(signed(before.secret, 'evt_rotated_1'));
		expect(refused.response?.statusCode).toBe(503);
		expect(refused.workflowData).toBeUndefined();
		const warning = capturedLogs().find((line) => line.text.includes('cannot verify deliveries'));
		expect(warning?.text).toMatch(/Unpublish and publish the workflow again/);
		expect(warning?.text).not.toContain(before.secret.slice(6));

		expect(await rotated.activate()).toBe(true);
		expect(subscriptions()).toHaveLength(1);
		const after = stored(rotated);
		expect(after.id).not.toBe(before.id);
		const accepted = await rotated.deliver(signed(after.secret, 'evt_rotated_2'));
		expect(accepted.workflowData?.[0]).toHaveLength(1);
	});

	it('static data alone does not open the secret: another key, or another subscription id, gets nothing', async () => {
		const { openSecret, sealSecret } = await import('../../nodes/Svc/trigger/webhook/sealedSecret');
		const sealed = sealSecret(FULL_KEY, 'sub_1', 'whsec_c2VjcmV0');
		expect(openSecret(FULL_KEY, 'sub_1', sealed)).toBe('whsec_c2VjcmV0');
		expect(openSecret(ROTATED_KEY, 'sub_1', sealed)).toBeUndefined();
		expect(openSecret(FULL_KEY, 'sub_2', sealed)).toBeUndefined();
		// A tag with one bit flipped (a changed last base64 character may only touch padding bits).
		const parts = sealed.split('.');
		const tag = Buffer.from(parts[3], 'base64url');
		tag[0] ^= 1;
		expect(
			openSecret(FULL_KEY, 'sub_1', [...parts.slice(0, 3), tag.toString('base64url')].join('.')),
		).toBeUndefined();
		expect(sealSecret(FULL_KEY, 'sub_1', 'whsec_c2VjcmV0')).not.toBe(sealed);
	});
});
