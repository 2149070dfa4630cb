import type { ApiErrorBody, EventPage } from '../../nodes/Svc/contract';
import { ENDPOINTS, ERROR_CODES, EVENT_EXPIRED_STATUS } from '../../nodes/Svc/contract';
import type { Sandbox } from '../../sandbox';
import { startSandbox } from '../../sandbox';
import { client, KEYS } from './helpers';

let sandbox: Sandbox;
let now = Date.parse('2026-11-01T10:00:00.000Z');

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, clock: () => now });
});
afterAll(async () => {
	await sandbox.close();
});
beforeEach(() => {
	sandbox.state.reset();
	now = Date.parse('2026-11-01T10:00:00.000Z');
});

function emit(type: string, count: number): string[] {
	return Array.from({ length: count }, (_, n) => {
		now += 1;
		return sandbox.state.deliveries.emit(type, { n }).event.id;
	});
}

async function list(params: Record<string, string | number>, key: string = KEYS.full) {
	return await client(sandbox.url, key).get<EventPage & ApiErrorBody>(ENDPOINTS.listEvents.path, {
		params,
	});
}

describe("GET /v1/events (the contract's event list)", () => {
	it('lists the delivered envelopes oldest first, page by page with after and has_more', async () => {
		const ids = emit('lead.created', 7);
		const first = await list({ limit: 3 });
		expect(first.status).toBe(200);
		expect(first.data.data.map((event) => event.id)).toEqual(ids.slice(0, 3));
		expect(first.data.has_more).toBe(true);
		expect(first.data.data[0]).toEqual(sandbox.state.deliveries.listEvents()[0]);
		const rest = await list({ limit: 100, after: ids[2] });
		expect(rest.data.data.map((event) => event.id)).toEqual(ids.slice(3));
		expect(rest.data.has_more).toBe(false);
		const none = await list({ after: ids[6] });
		expect(none.data).toEqual({ data: [], has_more: false });
	});

	it('filters by types, and starts after a time with created_after (ignored beside after)', async () => {
		const leads = emit('lead.created', 2);
		const since = new Date(now).toISOString();
		const campaigns = emit('campaign.updated', 2);
		const later = emit('lead.created', 1);
		expect((await list({ types: 'campaign.updated' })).data.data.map((e) => e.id)).toEqual(
			campaigns,
		);
		expect((await list({ created_after: since })).data.data.map((e) => e.id)).toEqual([
			...campaigns,
			...later,
		]);
		expect(
			(await list({ created_after: since, after: leads[0] })).data.data.map((e) => e.id),
		).toEqual([leads[1], ...campaigns, ...later]);
	});

	it("needs each kind's read scope: 403 naming it when asked for, left out when not", async () => {
		const leadsReader = `svc_test_${'LeadsReader'.padEnd(24, '0')}`;
		sandbox.state.keys.add({ key: leadsReader, scopes: ['leads:read'] });
		emit('campaign.updated', 1);
		const leads = emit('lead.created', 1);
		const refused = await list({ types: 'lead.created,campaign.updated' }, leadsReader);
		expect(refused.status).toBe(403);
		expect(refused.data.error).toMatchObject({
			code: ERROR_CODES.missingScope,
			required_scope: 'campaigns:read',
		});
		const readable = await list({}, leadsReader);
		expect(readable.data.data.map((event) => event.id)).toEqual(leads);
	});

	it('answers 410 event_expired for an after it no longer keeps or never made', async () => {
		const [old] = emit('lead.created', 1);
		await client(sandbox.url).put('/__admin/event-list', { retentionMs: 60_000 });
		now += 61_000;
		const fresh = emit('lead.created', 1);
		for (const after of [old, 'evt_unknown']) {
			const gone = await list({ after });
			expect(gone.status).toBe(EVENT_EXPIRED_STATUS);
			expect(gone.data.error.code).toBe(ERROR_CODES.eventExpired);
		}
		expect((await list({})).data.data.map((event) => event.id)).toEqual(fresh);
	});

	it('answers 404 when switched off, as a service without the endpoint would', async () => {
		const admin = client(sandbox.url);
		expect((await admin.put('/__admin/event-list', { enabled: false })).data).toMatchObject({
			enabled: false,
		});
		expect((await list({})).status).toBe(404);
		expect((await admin.put('/__admin/event-list', { enabled: 'no' })).status).toBe(400);
		sandbox.state.reset();
		expect((await list({})).status).toBe(200);
	});

	it('caps a page at pageSizeMax whatever limit asks, with has_more, until reset', async () => {
		const ids = emit('lead.created', 5);
		const admin = client(sandbox.url);
		expect((await admin.put('/__admin/event-list', { pageSizeMax: 2 })).data).toMatchObject({
			pageSizeMax: 2,
		});
		const first = await list({ limit: 100 });
		expect(first.data).toMatchObject({ has_more: true });
		expect(first.data.data.map((event) => event.id)).toEqual(ids.slice(0, 2));
		expect((await list({ limit: 1 })).data.data.map((event) => event.id)).toEqual([ids[0]]);
		const last = await list({ after: ids[3] });
		expect(last.data).toEqual({ data: [expect.objectContaining({ id: ids[4] })], has_more: false });
		for (const pageSizeMax of [0, 101, 2.5, '2'])
			expect(
				(await admin.put<ApiErrorBody>('/__admin/event-list', { pageSizeMax })).data.error.message,
			).toBe('pageSizeMax must be a whole number from 1 to 100');
		sandbox.state.reset();
		const fresh = emit('lead.created', 3);
		expect((await list({})).data.data.map((event) => event.id)).toEqual(fresh);
	});

	it('refuses a bad limit or created_after with what to send', async () => {
		expect((await list({ limit: 0 })).data.error.message).toMatch(
			/limit must be a whole number from 1 to 100/,
		);
		expect((await list({ created_after: 'yesterday' })).data.error.message).toMatch(/ISO-8601/);
	});

	it('emits a numbered batch from the admin API', async () => {
		const answer = await client(sandbox.url).post<{ ids: string[] }>('/__admin/events/emit', {
			type: 'lead.created',
			count: 3,
		});
		expect(answer.status).toBe(202);
		const listed = (await list({})).data.data;
		expect(listed.map((event) => event.id)).toEqual(answer.data.ids);
		expect(listed.map((event) => event.data.n)).toEqual([1, 2, 3]);
	});
});
