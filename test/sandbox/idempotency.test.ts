import { randomUUID } from 'node:crypto';

import type { ApiErrorBody, Lead } from '../../nodes/Svc/contract';
import {
	ENDPOINTS,
	ERROR_CODES,
	IDEMPOTENCY_WINDOW_HOURS,
	buildPath,
} from '../../nodes/Svc/contract';
import type { Sandbox } from '../../sandbox';
import { startSandbox } from '../../sandbox';
import { IdempotencyStore } from '../../sandbox/idempotency';
import { KEYS, client } from './helpers';
import { until } from '../../harness/wait';

let sandbox: Sandbox;
let now = Date.UTC(2026, 5, 1);

beforeAll(async () => {
	// A clock the tests move, to step past the idempotency window.
	sandbox = await startSandbox({ clock: () => now });
});
afterAll(async () => {
	await sandbox.close();
});
beforeEach(() => sandbox.state.reset());

function post<T = Lead & ApiErrorBody>(
	path: string,
	body: unknown,
	idempotencyKey?: string,
	key: string = KEYS.full,
) {
	return client(sandbox.url, key).post<T>(path, body, {
		headers: idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey },
	});
}

const leads = ENDPOINTS.upsertLead.path;

describe('the Idempotency-Key header', () => {
	it.each([
		['upsertLead', leads],
		['dispatchCampaign', buildPath(ENDPOINTS.dispatchCampaign.path, { campaign_id: 'cmp_0002' })],
	])('is required by %s', async (_name, path) => {
		const { status, data } = await post(path, { email: 'a@example.com' });
		expect(status).toBe(400);
		expect(data.error.code).toBe(ERROR_CODES.invalidRequest);
		expect(data.error.message).toContain('Idempotency-Key');
	});

	it('is optional where the contract only has the client send it', async () => {
		const takeover = await post(
			buildPath(ENDPOINTS.assistantTakeover.path, { lead_id: 'lead_0001' }),
			{},
		);
		expect(takeover.status).toBe(200);
		const subscription = await post(ENDPOINTS.createSubscription.path, {
			url: 'https://hooks.example.com/a',
			events: ['lead.created'],
		});
		expect(subscription.status).toBe(201);
	});

	it('must be a UUID', async () => {
		const { status, data } = await post(leads, { email: 'a@example.com' }, 'retry-1');
		expect(status).toBe(400);
		expect(data.error.message).toMatch(/UUID/);
	});
});

describe('replays and conflicts', () => {
	it('replays the first response for the same key and body, without a second write', async () => {
		const key = randomUUID();
		const first = await post(
			leads,
			{ email: 'once@example.com', custom_fields: { a: 1, b: 2 } },
			key,
		);
		// The same body with its keys in another order is the same write.
		const second = await post(
			leads,
			{ custom_fields: { b: 2, a: 1 }, email: 'once@example.com' },
			key,
		);
		expect(first.status).toBe(201);
		expect(first.headers['idempotent-replayed']).toBeUndefined();
		expect(second.status).toBe(201);
		expect(second.headers['idempotent-replayed']).toBe('true');
		expect(second.data).toEqual(first.data);
		expect(sandbox.state.stats.snapshot()).toMatchObject({
			leadsCreated: 1,
			leadsUpdated: 0,
			replays: 1,
		});
		expect(sandbox.state.requests.all().map((request) => request.replayed)).toEqual([false, true]);
	});

	it('answers 422 idempotency_key_reused for the same key with another body', async () => {
		const key = randomUUID();
		await post(leads, { email: 'one@example.com' }, key);
		const { status, data } = await post(leads, { email: 'two@example.com' }, key);
		expect(status).toBe(422);
		expect(data.error.code).toBe(ERROR_CODES.idempotencyKeyReused);
		expect(sandbox.state.store.findLead('email', 'two@example.com')).toBeUndefined();
	});

	it('keeps keys apart per API key', async () => {
		const key = randomUUID();
		expect((await post(leads, { email: 'k1@example.com' }, key, KEYS.full)).status).toBe(201);
		expect((await post(leads, { email: 'k2@example.com' }, key, KEYS.legacy)).status).toBe(201);
	});

	it('answers 409 idempotency_in_progress while the first request is still running', async () => {
		// The first request holds its key in its latency until the test ends that latency.
		sandbox.state.faults.set([{ route: `POST ${leads}`, latencyMs: 60_000 }]);
		const key = randomUUID();
		const first = post(leads, { email: 'slow@example.com' }, key);
		await until('the first request holds the key', () => sandbox.state.timers.pending === 1, {
			everyMs: 10,
			timeoutMs: 15_000,
		});
		const during = await post(leads, { email: 'slow@example.com' }, key);
		expect(during.status).toBe(409);
		expect((during.data as ApiErrorBody).error.code).toBe(ERROR_CODES.idempotencyInProgress);
		sandbox.state.timers.elapseAll();
		expect((await first).status).toBe(201);
		sandbox.state.faults.clear();
		const after = await post(leads, { email: 'slow@example.com' }, key);
		expect([after.status, after.headers['idempotent-replayed']]).toEqual([201, 'true']);
		expect(sandbox.state.stats.snapshot().leadsCreated).toBe(1);
	});

	it('replays a refusal made by the write itself', async () => {
		const key = randomUUID();
		const path = buildPath(ENDPOINTS.assistantTakeover.path, { lead_id: 'lead_ghost' });
		const first = await post(path, {}, key);
		const again = await post(path, {}, key);
		expect([first.status, again.status, again.headers['idempotent-replayed']]).toEqual([
			404,
			404,
			'true',
		]);
	});

	it(`forgets a key after ${IDEMPOTENCY_WINDOW_HOURS} hours`, async () => {
		const key = randomUUID();
		await post(leads, { email: 'old@example.com' }, key);
		now += (IDEMPOTENCY_WINDOW_HOURS + 1) * 3600 * 1000;
		const later = await post(leads, { email: 'new@example.com' }, key);
		expect(later.status).toBe(201);
		expect(later.headers['idempotent-replayed']).toBeUndefined();
	});
});

describe('expired records', () => {
	const HOUR = 3600 * 1000;

	it('are swept on a later write, so a long-running sandbox does not keep every key', async () => {
		await post(leads, { email: 'first@example.com' }, randomUUID());
		await post(leads, { email: 'second@example.com' }, randomUUID());
		expect(sandbox.state.idempotency.size).toBe(2);
		now += IDEMPOTENCY_WINDOW_HOURS * HOUR;
		await post(leads, { email: 'third@example.com' }, randomUUID());
		expect(sandbox.state.idempotency.size).toBe(1);
	});

	it('are looked for at most once a minute, and only those past the window go', () => {
		let clock = 0;
		const store = new IdempotencyStore(() => clock);
		const claim = (key: string) => {
			const found = store.claim('svc_test_key', key, 'print');
			if (found.kind === 'claimed') found.complete({ status: 201, body: {} });
		};
		claim('early');
		clock = IDEMPOTENCY_WINDOW_HOURS * HOUR - 30_000;
		claim('a');
		clock += 59_999;
		// "early" is past its window, but the last sweep was less than a minute ago: kept for now.
		claim('b');
		expect(store.size).toBe(3);
		clock += 1;
		claim('c');
		expect(store.size).toBe(3);
	});
});
