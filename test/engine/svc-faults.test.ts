import type { IDataObject } from 'n8n-workflow';

import { shutdownEngine } from '../../harness/engine';
import {
	requestsTo,
	runSvc,
	useSandbox,
	visibleText,
	withoutBackoffJitter,
	FULL_KEY,
} from '../../harness/engine/svc';
import { until } from '../../harness/wait';

const sandbox = useSandbox();
afterAll(async () => await shutdownEngine());
// The faults below are seeded or fire always, and the waits asserted are Retry-After's and the timeout's.
withoutBackoffJitter();

function leads(count: number): IDataObject[] {
	return Array.from({ length: count }, (_, index) => ({
		email: `bulk${index}@example.com`,
		first_name: `Bulk ${index}`,
		consent_status: 'granted',
	}));
}

describe('writes under injected faults', () => {
	it('300 upserts with 20% faults (5xx, resets after commit, 409, 429): each lead created once, no failed item', async () => {
		sandbox().state.faults.set([
			{
				route: 'POST /v1/leads',
				errorRate: 0.1,
				errorStatuses: [500, 502, 503],
				resetRate: 0.05,
				conflictRate: 0.03,
				rateLimitedRate: 0.02,
				retryAfterSeconds: 1,
				seed: 7,
			},
		]);
		const result = await runSvc(
			sandbox(),
			{ resource: 'lead', operation: 'upsert', inputMode: 'mapAutomatically' },
			{ items: leads(300) },
		);
		expect(result.error).toBeUndefined();
		expect(result.output).toHaveLength(300);
		expect(
			result.output.every(
				(item, index) =>
					item.json.email === `bulk${index}@example.com` &&
					(item.pairedItem as { item: number }).item === index,
			),
		).toBe(true);
		const stats = sandbox().state.stats.snapshot();
		expect(stats.faultsInjected).toBeGreaterThan(30);
		expect(stats.leadsCreated).toBe(300);
		expect(stats.leadsUpdated).toBe(0);
		expect(
			[...sandbox().state.store.leads.values()].filter((lead) => lead.email?.startsWith('bulk'))
				.length,
		).toBe(300);
	}, 120_000);

	it('100 dispatches with resets after commit and 5xx: each dispatch created once', async () => {
		sandbox().state.faults.set([
			{
				route: 'POST /v1/campaigns/{campaign_id}/dispatch',
				errorRate: 0.1,
				resetRate: 0.1,
				seed: 11,
			},
		]);
		const items = Array.from({ length: 100 }, (_, index) => ({
			lead: `lead_000${(index % 9) + 1}`,
		}));
		const result = await runSvc(
			sandbox(),
			{
				resource: 'campaign',
				operation: 'dispatch',
				campaignId: { __rl: true, mode: 'id', value: 'cmp_0002' },
				confirmDispatch: true,
				leadIds: '={{ $json.lead }}',
				// Each item is its own dispatch, even to a lead an item before it had.
				options: { sendAgain: true },
			},
			{ items },
		);
		expect(result.error).toBeUndefined();
		expect(result.output).toHaveLength(100);
		expect(sandbox().state.stats.snapshot().dispatches).toBe(100);
		expect(new Set(result.output.map((item) => item.json.dispatch_id)).size).toBe(100);
	}, 120_000);

	it("n8n's Retry On Fail re-sends the same Idempotency-Keys, so committed writes are not repeated", async () => {
		// Every attempt commits the write and then loses the connection, until the node gives up.
		sandbox().state.faults.set([{ route: 'POST /v1/leads', resetRate: 1 }]);
		const running = runSvc(
			sandbox(),
			{ resource: 'lead', operation: 'upsert', inputMode: 'mapAutomatically' },
			{
				items: leads(3),
				settings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 2000 },
			},
		);
		// 3 items in flight at once, 10 attempts each: then the node fails and n8n waits to re-run it.
		await until('30 upsert attempts', () => requestsTo(sandbox(), 'POST /v1/leads').length >= 30, {
			everyMs: 10,
			timeoutMs: 60_000,
		});
		sandbox().state.faults.clear();
		const result = await running;
		expect(result.error).toBeUndefined();
		expect(result.output.map((item) => item.json.email)).toEqual([
			'bulk0@example.com',
			'bulk1@example.com',
			'bulk2@example.com',
		]);
		const requests = requestsTo(sandbox(), 'POST /v1/leads');
		expect(requests).toHaveLength(33);
		expect(new Set(requests.map((request) => request.headers['idempotency-key'])).size).toBe(3);
		expect(requests.slice(30).every((request) => request.replayed)).toBe(true);
		expect(sandbox().state.stats.snapshot().leadsCreated).toBe(3);
	}, 90_000);

	it('a 429 with Retry-After holds back every worker, then all items succeed', async () => {
		sandbox().state.rateLimiter.setRate(20);
		const started = Date.now();
		const result = await runSvc(
			sandbox(),
			{ resource: 'lead', operation: 'upsert', inputMode: 'mapAutomatically' },
			{ items: leads(60) },
		);
		expect(result.error).toBeUndefined();
		expect(result.output).toHaveLength(60);
		expect(sandbox().state.stats.snapshot().leadsCreated).toBe(60);
		// A lower bound, which load can only lengthen: 60 requests at 20/s cannot finish in under
		// ~2 s. The point is that none failed.
		expect(Date.now() - started).toBeGreaterThan(1500);
	}, 60_000);

	it('Max Requests per Second spaces requests so the service never has to say 429', async () => {
		sandbox().state.rateLimiter.setRate(20);
		const result = await runSvc(
			sandbox(),
			{
				resource: 'lead',
				operation: 'upsert',
				inputMode: 'mapAutomatically',
				options: { maxRequestsPerSecond: 15 },
			},
			{ items: leads(30) },
		);
		expect(result.output).toHaveLength(30);
		const statuses = requestsTo(sandbox(), 'POST /v1/leads').map((request) => request.status);
		expect(statuses.filter((status) => status === 429)).toHaveLength(0);
	}, 60_000);

	it('in-flight requests never exceed the Concurrency option', async () => {
		// Each request waits in its latency until the test ends it, which it does once three are held
		// (or all that are left): three at once is reached however slowly they come, and a fourth would show.
		sandbox().state.faults.set([{ route: 'POST /v1/leads', latencyMs: 60_000 }]);
		sandbox().state.stats.reset();
		let over = false;
		const running = runSvc(
			sandbox(),
			{
				resource: 'lead',
				operation: 'upsert',
				inputMode: 'mapAutomatically',
				options: { concurrency: 3 },
			},
			{ items: leads(30) },
		).finally(() => (over = true));
		const held = () => sandbox().state.timers.pending;
		while (!over) {
			await until(
				'three requests held',
				() =>
					over ||
					(held() > 0 && held() >= Math.min(3, 30 - sandbox().state.stats.snapshot().leadsCreated)),
				{ everyMs: 5 },
			);
			sandbox().state.timers.elapseAll();
		}
		expect((await running).error).toBeUndefined();
		expect(sandbox().state.stats.snapshot()).toMatchObject({ maxInFlight: 3, leadsCreated: 30 });
	}, 60_000);

	it('a server that never answers makes the item fail clearly after the timeout and retries', async () => {
		sandbox().state.faults.set([{ route: 'GET /v1/me', hangRate: 1 }]);
		const started = Date.now();
		const result = await runSvc(sandbox(), {
			resource: 'account',
			operation: 'getMe',
			options: { timeoutSeconds: 1 },
		});
		expect(result.error?.message).toMatch(
			/^Could not reach the service \(E[A-Z_]+\) after 3 attempts$/,
		);
		// Generous on purpose: 3 attempts of 1 s and their backoff take a few seconds, while the
		// default 30 s timeout would take at least 90 s; this only tells the two apart.
		expect(Date.now() - started).toBeLessThan(30_000);
		expect(visibleText(result)).not.toContain(FULL_KEY);
	}, 60_000);

	it('a 5xx that persists fails after the retries with the status, and 400s are not retried', async () => {
		sandbox().state.faults.set([{ route: 'GET /v1/me', errorRate: 1, errorStatuses: [503] }]);
		const failing = await runSvc(sandbox(), { resource: 'account', operation: 'getMe' });
		expect(failing.error?.message).toBe('The service failed with status 503 after 10 attempts');
		expect(requestsTo(sandbox(), 'GET /v1/me')).toHaveLength(10);
		sandbox().state.faults.set([{ route: 'GET /v1/me', errorRate: 1, errorStatuses: [400] }]);
		await runSvc(sandbox(), { resource: 'account', operation: 'getMe' });
		expect(requestsTo(sandbox(), 'GET /v1/me')).toHaveLength(11);
	}, 60_000);
});
