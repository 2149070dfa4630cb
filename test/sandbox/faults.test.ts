/* eslint-disable @n8n/community-nodes/require-node-api-error -- tooling that runs in Node.js beside n8n, never inside it */
import { AxiosError } from 'axios';
import { randomUUID } from 'node:crypto';

import type { ApiErrorBody, Lead, Me } from '../../nodes/Svc/contract';
import { ENDPOINTS, ERROR_CODES } from '../../nodes/Svc/contract';
import type { FaultRule, RecordedRequest, Sandbox, SandboxStats } from '../../sandbox';
import { startSandbox } from '../../sandbox';
import { KEYS, client } from './helpers';
import { until } from '../../harness/wait';

let sandbox: Sandbox;
/** The rate limit's clock: still unless a test moves it, so a burst is one instant however slowly it arrives. */
let rateClockMs = 0;

beforeAll(async () => {
	sandbox = await startSandbox({ monotonicClock: () => rateClockMs });
});
afterAll(async () => {
	await sandbox.close();
});
beforeEach(() => sandbox.state.reset());

const api = (key: string = KEYS.full, timeout?: number) => client(sandbox.url, key, timeout);
const admin = () => client(sandbox.url);
const LEADS_ROUTE = `POST ${ENDPOINTS.upsertLead.path}`;
const ME_ROUTE = `GET ${ENDPOINTS.getMe.path}`;

function upsert(body: unknown, idempotencyKey: string) {
	return api().post<Lead & ApiErrorBody>(ENDPOINTS.upsertLead.path, body, {
		headers: { 'Idempotency-Key': idempotencyKey },
	});
}

async function setFaults(rules: FaultRule[]): Promise<void> {
	expect((await admin().put('/__admin/faults', { rules })).status).toBe(200);
}

/** The network error code of a request that got no response. */
async function networkError(request: Promise<unknown>): Promise<string | undefined> {
	try {
		await request;
	} catch (error) {
		if (error instanceof AxiosError) return error.code;
		throw error;
	}
	throw new Error('expected the request to fail without a response');
}

describe('fault injection through the admin API', () => {
	it('answers errorRate 1 with an injected 5xx, on the named route only', async () => {
		await setFaults([{ route: ME_ROUTE, errorRate: 1, errorStatuses: [503] }]);
		const failed = await api().get<ApiErrorBody>(ENDPOINTS.getMe.path);
		expect(failed.status).toBe(503);
		expect(failed.data.error.code).toBe(ERROR_CODES.serverError);
		expect(failed.data.error.request_id).toMatch(/^req_/);
		expect((await api().get(ENDPOINTS.listLeads.path)).status).toBe(200);
		expect((await admin().get<{ rules: FaultRule[] }>('/__admin/faults')).data.rules).toHaveLength(
			1,
		);

		await admin().delete('/__admin/faults');
		expect((await api().get(ENDPOINTS.getMe.path)).status).toBe(200);
	});

	it('releases the idempotency key of a write that failed with a fault', async () => {
		const key = randomUUID();
		await setFaults([{ route: LEADS_ROUTE, errorRate: 1 }]);
		expect([500, 502, 503]).toContain((await upsert({ email: 'retry@example.com' }, key)).status);
		await admin().delete('/__admin/faults');
		const retried = await upsert({ email: 'retry@example.com' }, key);
		expect([retried.status, retried.headers['idempotent-replayed']]).toEqual([201, undefined]);
	});

	it('fails replays too, since faults stand for trouble on the way', async () => {
		const key = randomUUID();
		expect((await upsert({ email: 'replayed@example.com' }, key)).status).toBe(201);
		await setFaults([{ route: LEADS_ROUTE, errorRate: 1, errorStatuses: [502] }]);
		expect((await upsert({ email: 'replayed@example.com' }, key)).status).toBe(502);
		await admin().delete('/__admin/faults');
		const replayed = await upsert({ email: 'replayed@example.com' }, key);
		expect([replayed.status, replayed.headers['idempotent-replayed']]).toEqual([201, 'true']);
	});

	it('repeats the same sequence for the same seed', async () => {
		const run = async () => {
			await setFaults([{ errorRate: 0.5, seed: 42 }]);
			const statuses: number[] = [];
			for (let n = 0; n < 12; n++) statuses.push((await api().get(ENDPOINTS.getMe.path)).status);
			return statuses;
		};
		const first = await run();
		expect(first).toContain(200);
		expect(first.some((status) => status >= 500)).toBe(true);
		expect(await run()).toEqual(first);
	});

	it('resetRate 1 commits the write, then drops the connection; a retry replays it', async () => {
		await setFaults([{ route: LEADS_ROUTE, resetRate: 1 }]);
		const key = randomUUID();
		expect(await networkError(upsert({ email: 'committed@example.com' }, key))).toMatch(
			/ECONNRESET|ERR_BAD_RESPONSE|ECONNABORTED/,
		);
		const lead = sandbox.state.store.findLead('email', 'committed@example.com');
		expect(lead).toBeDefined();
		expect(sandbox.state.stats.snapshot().leadsCreated).toBe(1);

		await admin().delete('/__admin/faults');
		const retried = await upsert({ email: 'committed@example.com' }, key);
		expect([retried.status, retried.headers['idempotent-replayed'], retried.data.id]).toEqual([
			201,
			'true',
			lead?.id,
		]);
		expect(sandbox.state.stats.snapshot().leadsCreated).toBe(1);
	});

	it('resetBeforeRate 1 drops the connection before any write', async () => {
		await setFaults([{ route: LEADS_ROUTE, resetBeforeRate: 1 }]);
		const key = randomUUID();
		expect(await networkError(upsert({ email: 'never@example.com' }, key))).toBeDefined();
		expect(sandbox.state.store.findLead('email', 'never@example.com')).toBeUndefined();
		sandbox.state.faults.clear();
		const retried = await upsert({ email: 'never@example.com' }, key);
		expect([retried.status, retried.headers['idempotent-replayed']]).toEqual([201, undefined]);
	});

	it('conflictRate 1 answers 409 idempotency_in_progress and writes nothing', async () => {
		await setFaults([{ route: LEADS_ROUTE, conflictRate: 1 }]);
		const { status, data } = await upsert({ email: 'conflict@example.com' }, randomUUID());
		expect(status).toBe(409);
		expect(data.error.code).toBe(ERROR_CODES.idempotencyInProgress);
		expect(sandbox.state.stats.snapshot()).toMatchObject({ leadsCreated: 0, faultsInjected: 1 });
	});

	it('rateLimitedRate 1 answers 429 rate_limited with Retry-After', async () => {
		await setFaults([{ rateLimitedRate: 1, retryAfterSeconds: 3 }]);
		const { status, data, headers } = await api().get<ApiErrorBody>(ENDPOINTS.getMe.path);
		expect(status).toBe(429);
		expect(data.error.code).toBe(ERROR_CODES.rateLimited);
		expect(headers['retry-after']).toBe('3');
	});

	it('hangRate 1 never answers, so the client times out', async () => {
		await setFaults([{ route: ME_ROUTE, hangRate: 1 }]);
		// The client's timeout is the behaviour here; the sandbox may record the request after it fires.
		expect(await networkError(api(KEYS.full, 1_000).get(ENDPOINTS.getMe.path))).toBe(
			'ECONNABORTED',
		);
		await until('the hung request recorded', () => sandbox.state.requests.all().length === 1, {
			everyMs: 10,
			timeoutMs: 15_000,
		});
		const [entry] = sandbox.state.requests.all();
		expect(entry).toMatchObject({ route: ME_ROUTE, status: null, fault: 'hang' });
	});

	it.each([
		['a rate above 1', { errorRate: 2 }, /errorRate/],
		['an unknown route', { route: 'GET /v1/nothing', errorRate: 1 }, /route/],
		['an unknown field', { errorRatio: 1 }, /errorRatio/],
		['statuses outside 400..599', { errorRate: 1, errorStatuses: [200] }, /errorStatuses/],
	])('refuses a rule with %s', async (_what, rule, message) => {
		const { status, data } = await admin().put<ApiErrorBody>('/__admin/faults', { rules: [rule] });
		expect(status).toBe(400);
		expect(data.error.message).toMatch(message);
	});
});

describe('rate limit', () => {
	it('answers 429 with a whole-second Retry-After past the limit, per key', async () => {
		expect((await admin().put('/__admin/rate-limit', { requestsPerSecond: 2 })).data).toEqual({
			requestsPerSecond: 2,
		});
		const responses = await Promise.all(
			Array.from({ length: 6 }, () => api().get<ApiErrorBody>(ENDPOINTS.getMe.path)),
		);
		const limited = responses.filter((response) => response.status === 429);
		expect(responses.filter((response) => response.status === 200)).toHaveLength(2);
		expect(limited).toHaveLength(4);
		for (const response of limited) {
			expect(response.data.error.code).toBe(ERROR_CODES.rateLimited);
			expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
			expect(response.headers['retry-after']).toMatch(/^\d+$/);
		}
		expect((await api(KEYS.readOnly).get(ENDPOINTS.getMe.path)).status).toBe(200);

		await admin().put('/__admin/rate-limit', { requestsPerSecond: null });
		expect((await api().get(ENDPOINTS.getMe.path)).status).toBe(200);
	});

	it('lets requests through again once the bucket refills', async () => {
		sandbox.state.rateLimiter.setRate(10);
		const burst = await Promise.all(
			Array.from({ length: 12 }, () => api().get(ENDPOINTS.getMe.path)),
		);
		expect(burst.filter((response) => response.status === 429)).toHaveLength(2);
		expect((await api().get(ENDPOINTS.getMe.path)).status).toBe(429);
		// A quarter of a second at 10/s refills 2.5 tokens.
		rateClockMs += 250;
		expect((await api().get(ENDPOINTS.getMe.path)).status).toBe(200);
	});
});

describe('admin records and counters', () => {
	it('counts the most requests in flight at once', async () => {
		await setFaults([{ route: ME_ROUTE, latencyMs: 60_000 }]);
		await admin().post('/__admin/stats/reset');
		const six = Promise.all(Array.from({ length: 6 }, () => api().get(ENDPOINTS.getMe.path)));
		// Each is held in its latency until all six are in, however slowly they arrive.
		await until('six requests held', () => sandbox.state.timers.pending === 6, {
			everyMs: 10,
			timeoutMs: 15_000,
		});
		sandbox.state.timers.elapseAll();
		await six;
		const stats = (await admin().get<SandboxStats>('/__admin/stats')).data;
		expect(stats).toMatchObject({ maxInFlight: 6, inFlight: 0, requests: 6 });
		expect(stats.byRoute[ME_ROUTE]).toEqual({ requests: 6, outcomes: { '200': 6 } });

		await setFaults([{ route: ME_ROUTE, latencyMs: 20 }]);
		await admin().post('/__admin/stats/reset');
		for (let n = 0; n < 3; n++) await api().get(ENDPOINTS.getMe.path);
		expect((await admin().get<SandboxStats>('/__admin/stats')).data).toMatchObject({
			maxInFlight: 1,
			requests: 3,
		});
	});

	it('records each request as received, and clears the record', async () => {
		const key = randomUUID();
		await upsert({ email: 'log@example.com' }, key);
		await upsert({ email: 'log@example.com' }, key);
		const { data } = await admin().get<{ data: RecordedRequest[] }>('/__admin/requests');
		expect(data.data).toHaveLength(2);
		const [first, replay] = data.data;
		expect(first).toMatchObject({
			method: 'POST',
			path: ENDPOINTS.upsertLead.path,
			route: LEADS_ROUTE,
			status: 201,
			replayed: false,
			rawBody: '{"email":"log@example.com"}',
			body: { email: 'log@example.com' },
		});
		expect(first.headers).toMatchObject({
			authorization: `Bearer ${KEYS.full}`,
			'idempotency-key': key,
			'content-type': 'application/json',
		});
		expect(replay.replayed).toBe(true);
		// None of the admin calls above is recorded.
		await admin().delete('/__admin/requests');
		expect((await admin().get<{ data: RecordedRequest[] }>('/__admin/requests')).data.data).toEqual(
			[],
		);
	});

	it('adds keys, and resets to the seed state', async () => {
		const extra = 'svc_test_AddedByAdminApi0000000001';
		const added = await admin().post('/__admin/keys', { key: extra, scopes: ['leads:read'] });
		expect(added.status).toBe(201);
		expect((await api(extra).get<Me>(ENDPOINTS.getMe.path)).data.key.scopes).toEqual([
			'leads:read',
		]);
		expect((await admin().post('/__admin/keys', { key: 'sk_nope', scopes: [] })).status).toBe(400);

		await upsert({ email: 'gone@example.com' }, randomUUID());
		expect((await admin().post('/__admin/reset')).status).toBe(200);
		expect(sandbox.state.store.findLead('email', 'gone@example.com')).toBeUndefined();
		expect(sandbox.state.store.leads.size).toBe(12);
		expect((await api(extra).get(ENDPOINTS.getMe.path)).status).toBe(401);
	});
});
