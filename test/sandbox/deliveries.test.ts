/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';

import type { EventEnvelope, Lead, Subscription } from '../../nodes/Svc/contract';
import { ENDPOINTS, EVENT_SIGNATURE, buildPath } from '../../nodes/Svc/contract';
import type { DeliveryAttempt, Sandbox } from '../../sandbox';
import { startSandbox } from '../../sandbox';
import { DISPATCHED_STATUS } from '../../sandbox/operations';
import type { Received } from './helpers';
import { makeLocalCa } from '../../harness/local-ca';
import { until } from '../../harness/wait';
import { KEYS, Receiver, client } from './helpers';

let tlsDir: string;
let caPem: string;
let receiver: Receiver;
let hookUrl: string;
let sandbox: Sandbox;
/** Added to the sandbox's clock: a test moves it to step past a second without waiting one. */
let clockShiftMs = 0;

beforeAll(async () => {
	// The receiver serves a certificate from a throwaway local CA, which only the sandbox trusts.
	tlsDir = await mkdtemp(join(tmpdir(), 'svc-sandbox-tls-'));
	const ca = await makeLocalCa(tlsDir);
	caPem = ca.caPem;
	receiver = new Receiver({
		key: await readFile(ca.keyPath, 'utf8'),
		cert: await readFile(ca.certPath, 'utf8'),
	});
	hookUrl = await receiver.listen();
	sandbox = await startSandbox({
		allowLoopbackWebhooks: true,
		trustedCa: caPem,
		// A timeout no answer of a loaded machine reaches: only the timeout test's own sandbox times out.
		delivery: { timeoutMs: 10_000, retryDelaysMs: [20, 20] },
		clock: () => Date.now() + clockShiftMs,
	});
});
afterAll(async () => {
	await sandbox.close();
	await receiver.close();
	await rm(tlsDir, { recursive: true, force: true });
});
beforeEach(() => {
	sandbox.state.reset();
	receiver.clear();
});

const api = () => client(sandbox.url, KEYS.full);
const admin = () => client(sandbox.url);

async function subscribe(events: string[], url = hookUrl): Promise<Required<Subscription>> {
	const { status, data } = await api().post<Required<Subscription>>(
		ENDPOINTS.createSubscription.path,
		{ url, events },
		{ headers: { 'Idempotency-Key': randomUUID() } },
	);
	expect(status).toBe(201);
	return data;
}

async function createLead(email: string): Promise<Lead> {
	const { status, data } = await api().post<Lead>(
		ENDPOINTS.upsertLead.path,
		{ email },
		{ headers: { 'Idempotency-Key': randomUUID() } },
	);
	expect(status).toBe(201);
	return data;
}

/** Checks the delivery the way a receiver must, with the reference implementation. */
function verify(secret: string, delivery: Received): EventEnvelope {
	return new Webhook(secret).verify(delivery.body, {
		[EVENT_SIGNATURE.idHeader]: String(delivery.headers[EVENT_SIGNATURE.idHeader]),
		[EVENT_SIGNATURE.timestampHeader]: String(delivery.headers[EVENT_SIGNATURE.timestampHeader]),
		[EVENT_SIGNATURE.signatureHeader]: String(delivery.headers[EVENT_SIGNATURE.signatureHeader]),
	}) as EventEnvelope;
}

async function attempts(eventId: string): Promise<DeliveryAttempt[]> {
	return (
		await admin().get<{ data: DeliveryAttempt[] }>('/__admin/deliveries', {
			params: { event_id: eventId },
		})
	).data.data;
}

describe('signed deliveries', () => {
	it('delivers lead.created over https, signed so that standardwebhooks verifies it', async () => {
		const subscription = await subscribe(['lead.created']);
		await subscribe(['campaign.updated']);
		const lead = await createLead('signed@example.com');
		await sandbox.state.waitForDeliveries();

		expect(receiver.received).toHaveLength(1);
		const [delivery] = receiver.received;
		expect(delivery.headers['content-type']).toBe('application/json');
		expect(delivery.headers[EVENT_SIGNATURE.signatureHeader]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
		const event = verify(subscription.secret, delivery);
		expect(event).toEqual({
			id: event.id,
			type: 'lead.created',
			created_at: event.created_at,
			data: lead,
		});
		expect(event.id).toMatch(/^evt_/);
		expect(Date.parse(event.created_at)).not.toBeNaN();
		expect(delivery.headers[EVENT_SIGNATURE.idHeader]).toBe(event.id);
		expect(
			Math.abs(Number(delivery.headers[EVENT_SIGNATURE.timestampHeader]) - Date.now() / 1000),
		).toBeLessThan(60);

		// The check is real: a changed body or another secret fails it.
		expect(() =>
			verify(subscription.secret, {
				...delivery,
				body: delivery.body.replace('signed@', 'forged@'),
			}),
		).toThrow();
		expect(() => verify(`whsec_${Buffer.alloc(24, 1).toString('base64')}`, delivery)).toThrow();

		const [attempt] = await attempts(event.id);
		expect(attempt).toMatchObject({
			subscriptionId: subscription.id,
			url: hookUrl,
			attempt: 1,
			status: 200,
			ok: true,
			error: null,
		});
	});

	it('delivers campaign.updated from a dispatch and from the admin touch', async () => {
		const subscription = await subscribe(['campaign.updated']);
		await api().post(
			buildPath(ENDPOINTS.dispatchCampaign.path, { campaign_id: 'cmp_0001' }),
			{},
			{ headers: { 'Idempotency-Key': randomUUID() } },
		);
		// Deliveries run side by side: the second event is emitted once the first has arrived, so their order is known.
		await until('the dispatch delivered', () => receiver.received.length === 1, {
			everyMs: 10,
			timeoutMs: 15_000,
		});
		expect(
			(await admin().post('/__admin/campaigns/cmp_0003/touch', { status: 'paused' })).data,
		).toMatchObject({ id: 'cmp_0003', status: 'paused' });
		await sandbox.state.waitForDeliveries();
		const events = receiver.received.map((delivery) => verify(subscription.secret, delivery));
		expect(events.map((event) => [event.type, event.data.id, event.data.status])).toEqual([
			['campaign.updated', 'cmp_0001', DISPATCHED_STATUS],
			['campaign.updated', 'cmp_0003', 'paused'],
		]);
	});

	it('emits events from the admin API: a service-side lead and any event type', async () => {
		const subscription = await subscribe(['lead.created', 'custom.kind']);
		const formFill = await admin().post<Lead>('/__admin/leads', {
			email: 'form@example.com',
			source: 'web-form',
		});
		expect(formFill.status).toBe(201);
		await until('the lead delivered', () => receiver.received.length === 1, {
			everyMs: 10,
			timeoutMs: 15_000,
		});
		const emitted = await admin().post<{ event: EventEnvelope; deliveries: number }>(
			'/__admin/events/emit',
			{ type: 'custom.kind', data: { hello: 'world' } },
		);
		expect(emitted.data.deliveries).toBe(1);
		await sandbox.state.waitForDeliveries();
		const events = receiver.received.map((delivery) => verify(subscription.secret, delivery));
		expect(events.map((event) => [event.type, event.data])).toEqual([
			['lead.created', formFill.data],
			['custom.kind', { hello: 'world' }],
		]);
		const listed = (
			await admin().get<{ data: Array<Required<Subscription>> }>('/__admin/subscriptions')
		).data.data;
		expect(listed).toEqual([{ ...subscription }]);
	});

	it('does not deliver to a deleted subscription', async () => {
		const subscription = await subscribe(['lead.created']);
		await api().delete(
			buildPath(ENDPOINTS.deleteSubscription.path, { subscription_id: subscription.id }),
		);
		await createLead('nobody-listens@example.com');
		await sandbox.state.waitForDeliveries();
		expect(receiver.received).toHaveLength(0);
	});

	it('fails deliveries to a receiver whose certificate authority is not trusted', async () => {
		const untrusting = await startSandbox({
			allowLoopbackWebhooks: true,
			delivery: { retryDelaysMs: [] },
		});
		try {
			const created = await client(untrusting.url, KEYS.full).post(
				ENDPOINTS.createSubscription.path,
				{ url: hookUrl, events: ['ping'] },
			);
			expect(created.status).toBe(201);
			const { event } = untrusting.state.deliveries.emit('ping', {});
			await untrusting.state.waitForDeliveries();
			const failed = untrusting.state.deliveries.attempts({ eventId: event.id });
			expect(failed).toHaveLength(1);
			expect(failed[0]).toMatchObject({ ok: false, status: null });
			expect(failed[0].error).toMatch(/certificate/i);
			expect(receiver.received).toHaveLength(0);
		} finally {
			await untrusting.close();
		}
	});
});

describe('retries and re-delivery', () => {
	it('retries after a non-2xx with the same webhook-id, signing each attempt anew', async () => {
		const subscription = await subscribe(['lead.created']);
		receiver.reply({ status: 500 }, { status: 410 });
		await createLead('retry@example.com');
		await sandbox.state.waitForDeliveries();

		expect(receiver.received).toHaveLength(3);
		const ids = receiver.received.map((delivery) => delivery.headers[EVENT_SIGNATURE.idHeader]);
		expect(new Set(ids).size).toBe(1);
		const events = receiver.received.map((delivery) => verify(subscription.secret, delivery));
		expect(new Set(events.map((event) => JSON.stringify(event))).size).toBe(1);
		expect(
			(await attempts(events[0].id)).map(({ attempt, status, ok }) => ({ attempt, status, ok })),
		).toEqual([
			{ attempt: 1, status: 500, ok: false },
			{ attempt: 2, status: 410, ok: false },
			{ attempt: 3, status: 200, ok: true },
		]);
	});

	it('retries a delivery that got no answer within the timeout', async () => {
		// The timeout is the behaviour under test: 2 s, which the prompt second answer keeps well inside
		// even on a loaded machine; the first answer would come only after 20 s.
		const impatient = await startSandbox({
			allowLoopbackWebhooks: true,
			trustedCa: caPem,
			delivery: { timeoutMs: 2_000, retryDelaysMs: [20] },
		});
		try {
			const created = await client(impatient.url, KEYS.full).post(
				ENDPOINTS.createSubscription.path,
				{ url: hookUrl, events: ['ping'] },
			);
			expect(created.status).toBe(201);
			receiver.reply({ status: 200, delayMs: 20_000 });
			impatient.state.deliveries.emit('ping', {});
			await impatient.state.waitForDeliveries();
			const [first, second] = impatient.state.deliveries.attempts();
			expect(first).toMatchObject({ attempt: 1, status: null, ok: false });
			expect(first.error).toContain('2000 ms');
			expect(second).toMatchObject({
				attempt: 2,
				status: 200,
				ok: true,
				webhookId: first.webhookId,
			});
		} finally {
			await impatient.close();
		}
	});

	it('gives up after the last retry delay', async () => {
		await subscribe(['lead.created']);
		receiver.reply({ status: 500 }, { status: 500 }, { status: 500 }, { status: 200 });
		await createLead('gives-up@example.com');
		await sandbox.state.waitForDeliveries();
		expect(sandbox.state.deliveries.attempts().map((attempt) => attempt.status)).toEqual([
			500, 500, 500,
		]);
	});

	it('re-delivers an event on request: same id and body, new timestamp and signature', async () => {
		const subscription = await subscribe(['lead.created']);
		await createLead('again@example.com');
		await sandbox.state.waitForDeliveries();
		const [original] = receiver.received;
		const eventId = String(original.headers[EVENT_SIGNATURE.idHeader]);

		// A second later on the sandbox's clock, so the timestamp (whole seconds) must differ.
		clockShiftMs += 1_000;
		const redelivered = await admin().post(`/__admin/events/${eventId}/redeliver`);
		expect(redelivered.data).toEqual({ event_id: eventId, deliveries: 1 });
		await until('two deliveries received', () => receiver.received.length === 2, {
			everyMs: 10,
			timeoutMs: 5000,
		});
		await sandbox.state.waitForDeliveries();
		const copy = receiver.received[1];
		expect(copy.headers[EVENT_SIGNATURE.idHeader]).toBe(eventId);
		expect(copy.body).toBe(original.body);
		expect(copy.headers[EVENT_SIGNATURE.timestampHeader]).not.toBe(
			original.headers[EVENT_SIGNATURE.timestampHeader],
		);
		expect(copy.headers[EVENT_SIGNATURE.signatureHeader]).not.toBe(
			original.headers[EVENT_SIGNATURE.signatureHeader],
		);
		expect(verify(subscription.secret, copy).id).toBe(eventId);
		expect((await attempts(eventId)).map((attempt) => attempt.redelivery)).toEqual([false, true]);

		expect((await admin().post('/__admin/events/evt_unknown/redeliver')).status).toBe(404);
	});

	it('close() cancels pending retries', async () => {
		const patient = await startSandbox({
			allowLoopbackWebhooks: true,
			trustedCa: caPem,
			delivery: { retryDelaysMs: [600_000] },
		});
		const created = await client(patient.url, KEYS.full).post(ENDPOINTS.createSubscription.path, {
			url: hookUrl,
			events: ['ping'],
		});
		expect(created.status).toBe(201);
		receiver.reply({ status: 500 });
		patient.state.deliveries.emit('ping', {});
		await until('the first attempt', () => patient.state.deliveries.attempts().length === 1, {
			everyMs: 10,
			timeoutMs: 5000,
		});
		await patient.close();
		// Without the cancel, this would wait out the 10-minute retry and the test would time out.
		await patient.state.waitForDeliveries();
		expect(patient.state.deliveries.attempts()).toHaveLength(1);
		expect(receiver.received).toHaveLength(1);
	});
});
