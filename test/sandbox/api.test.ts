import { randomUUID } from 'node:crypto';

import type {
	ApiErrorBody,
	Campaign,
	DispatchResult,
	Lead,
	ListPage,
	Me,
	Message,
	Subscription,
	TakeoverResult,
	Thread,
} from '../../nodes/Svc/contract';
import { ENDPOINTS, ERROR_CODES, LEAD_MATCH_ORDER, buildPath } from '../../nodes/Svc/contract';
import type { Sandbox } from '../../sandbox';
import { startSandbox } from '../../sandbox';
import { MAX_BODY_BYTES } from '../../sandbox/body';
import { KEYS, client } from './helpers';

const PAGE = 5;
let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, maxPageSize: PAGE });
});
afterAll(async () => {
	await sandbox.close();
});
beforeEach(() => sandbox.state.reset());

function api(key: string = KEYS.full) {
	return client(sandbox.url, key);
}

function upsert(body: unknown, key: string = KEYS.full) {
	return api(key).post<Lead & ApiErrorBody>(ENDPOINTS.upsertLead.path, body, {
		headers: { 'Idempotency-Key': randomUUID() },
	});
}

/** Follows next_cursor to the end, checking no page is larger than the sandbox's cap. */
async function readAll<T>(
	path: string,
	params: Record<string, string> = {},
	key: string = KEYS.full,
): Promise<{ items: T[]; pages: number }> {
	const items: T[] = [];
	let cursor: string | null = null;
	let pages = 0;
	do {
		const response: { status: number; data: ListPage<T> } = await api(key).get<ListPage<T>>(path, {
			params: { ...params, limit: 100, ...(cursor === null ? {} : { cursor }) },
		});
		expect(response.status).toBe(200);
		expect(response.data.data.length).toBeLessThanOrEqual(PAGE);
		items.push(...response.data.data);
		cursor = response.data.next_cursor;
		pages++;
	} while (cursor !== null);
	return { items, pages };
}

describe('authentication and scopes', () => {
	it('describes each demo key on GET /v1/me without revealing it', async () => {
		const cases: Array<[string, Me['key']['environment'], boolean]> = [
			[KEYS.full, 'test', false],
			[KEYS.live, 'live', false],
			[KEYS.legacy, 'test', true],
		];
		for (const [key, environment, legacy] of cases) {
			const { status, data } = await api(key).get<Me>(ENDPOINTS.getMe.path);
			expect(status).toBe(200);
			expect(data.account.id).toBeTruthy();
			expect(data.key).toMatchObject({ environment, legacy });
			expect(key.startsWith(data.key.prefix)).toBe(true);
			expect(data.key.prefix.length).toBeLessThan(key.length - 8);
		}
		const readOnly = await api(KEYS.readOnly).get<Me>(ENDPOINTS.getMe.path);
		expect(readOnly.data.key.scopes).toEqual([
			'leads:read',
			'conversations:read',
			'campaigns:read',
		]);
	});

	it.each([
		['no Authorization header', undefined],
		['a malformed key', 'svc_test_short'],
		['an unknown prefix', 'sk_test_AAAAAAAAAAAAAAAAAAAAAAAA'],
		['a well-formed unknown key', 'svc_test_UnknownKey00000000000000'],
	])('refuses %s with 401 invalid_api_key', async (_what, key) => {
		const { status, data } = await client(sandbox.url, key).get<ApiErrorBody>(ENDPOINTS.getMe.path);
		expect(status).toBe(401);
		expect(data.error.code).toBe(ERROR_CODES.invalidApiKey);
		expect(data.error.request_id).toMatch(/^req_/);
		if (key !== undefined) expect(data.error.message).not.toContain(key);
	});

	it('answers 403 missing_scope naming the required scope', async () => {
		const write = await upsert({ email: 'x@example.com' }, KEYS.readOnly);
		expect(write.status).toBe(403);
		expect(write.data.error).toMatchObject({
			code: ERROR_CODES.missingScope,
			required_scope: 'leads:write',
		});

		const dispatch = await api(KEYS.noSensitive).post<ApiErrorBody>(
			buildPath(ENDPOINTS.dispatchCampaign.path, { campaign_id: 'cmp_0002' }),
			{},
			{
				headers: { 'Idempotency-Key': randomUUID() },
			},
		);
		expect(dispatch.status).toBe(403);
		expect(dispatch.data.error.required_scope).toBe('campaigns:danger');

		const subscriptions = await api(KEYS.readOnly).get<ApiErrorBody>(
			ENDPOINTS.listSubscriptions.path,
		);
		expect(subscriptions.data.error.required_scope).toBe('webhooks:write');
	});

	it('refuses X-API-Key, which is reserved for the dashboard proxy', async () => {
		const { status, data } = await api().get<ApiErrorBody>(ENDPOINTS.getMe.path, {
			headers: { 'X-API-Key': KEYS.full },
		});
		expect(status).toBe(400);
		expect(data.error.code).toBe(ERROR_CODES.invalidRequest);
		expect(data.error.message).toMatch(/X-API-Key.*reserved.*proxy/i);
	});

	it('answers 404 for unknown paths and 405 for a known path with another method', async () => {
		expect((await api().get('/v1/nothing-here')).status).toBe(404);
		const wrong = await api().delete(ENDPOINTS.listLeads.path);
		expect(wrong.status).toBe(405);
		expect(wrong.headers.allow).toBe('POST, GET');
	});

	it('answers 400, not 500, to a path parameter that is not valid percent-encoding', async () => {
		const { status, data } = await api().get<ApiErrorBody>(
			ENDPOINTS.getLead.path.replace('{lead_id}', '%E0%A4%A'),
		);
		expect(status).toBe(400);
		expect(data.error.code).toBe(ERROR_CODES.invalidRequest);
		expect(data.error.message).toMatch(/lead_id.*percent-encoding/);
	});
});

describe('request bodies', () => {
	it('refuses a body that is not JSON, naming the problem', async () => {
		const broken = await api().post<ApiErrorBody>(ENDPOINTS.upsertLead.path, '{"email": ', {
			headers: { 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
			transformRequest: [(body: string) => body],
		});
		expect(broken.status).toBe(400);
		expect(broken.data.error.message).toMatch(/not valid JSON/);

		const form = await api().post<ApiErrorBody>(ENDPOINTS.upsertLead.path, 'email=a@example.com', {
			headers: {
				'Content-Type': 'application/x-www-form-urlencoded',
				'Idempotency-Key': randomUUID(),
			},
		});
		expect(form.status).toBe(400);
		expect(form.data.error.message).toMatch(/Content-Type: application\/json/);

		const array = await upsert([{ email: 'a@example.com' }]);
		expect(array.status).toBe(400);
		expect(array.data.error.message).toMatch(/JSON object/);
	});

	it("answers 413 to a body past the size cap, in the contract's error body", async () => {
		const oversized = await upsert({ email: 'a@example.com', notes: 'x'.repeat(MAX_BODY_BYTES) });
		expect(oversized.status).toBe(413);
		expect(oversized.data.error.code).toBe(ERROR_CODES.invalidRequest);
		expect(oversized.data.error.message).toContain(`larger than ${MAX_BODY_BYTES} bytes`);
	});
});

describe('leads', () => {
	it('creates (201), then updates (200) the same lead, merging custom fields', async () => {
		const created = await upsert({
			email: 'new.lead@example.com',
			first_name: 'New',
			custom_fields: { plan: 'pro', team: 'a' },
		});
		expect(created.status).toBe(201);
		expect(created.data).toMatchObject({
			email: 'new.lead@example.com',
			first_name: 'New',
			phone: null,
			custom_fields: { plan: 'pro', team: 'a' },
		});
		expect(created.data.id).toMatch(/^lead_/);

		const updated = await upsert({
			email: 'NEW.LEAD@example.com',
			last_name: 'Lead',
			custom_fields: { team: 'b' },
		});
		expect(updated.status).toBe(200);
		expect(updated.data.id).toBe(created.data.id);
		expect(updated.data).toMatchObject({
			first_name: 'New',
			last_name: 'Lead',
			custom_fields: { plan: 'pro', team: 'b' },
		});

		const fetched = await api().get<Lead>(
			buildPath(ENDPOINTS.getLead.path, { lead_id: created.data.id }),
		);
		expect(fetched.data).toEqual(updated.data);
		expect(sandbox.state.stats.snapshot()).toMatchObject({ leadsCreated: 1, leadsUpdated: 1 });
		expect(
			sandbox.state.deliveries.listEvents().map((event) => [event.type, event.data.id]),
		).toEqual([['lead.created', created.data.id]]);
	});

	it(`matches on the first of ${LEAD_MATCH_ORDER.join(', ')} that the body carries`, async () => {
		// lead_0001 is Ada: crm-1001, ada.lovelace@example.com, +14155550101.
		const byExternalId = await upsert({
			external_id: 'crm-1001',
			email: 'grace.hopper@example.com',
		});
		expect([byExternalId.status, byExternalId.data.id]).toEqual([200, 'lead_0001']);

		const newExternalId = await upsert({
			external_id: 'crm-9999',
			email: 'grace.hopper@example.com',
		});
		expect(newExternalId.status).toBe(201);

		const byEmail = await upsert({ email: 'claude.shannon@example.com', phone: '+14155550101' });
		expect([byEmail.status, byEmail.data.id]).toEqual([200, 'lead_0007']);

		const byPhone = await upsert({ phone: '+14155550104', first_name: 'Kathy' });
		expect([byPhone.status, byPhone.data.id, byPhone.data.first_name]).toEqual([
			200,
			'lead_0004',
			'Kathy',
		]);
	});

	it('matches the oldest lead when several share an email, and the next one once it changes', async () => {
		const twin = await upsert({ external_id: 'twin-1', email: 'grace.hopper@example.com' });
		expect(twin.status).toBe(201);
		expect((await upsert({ email: 'grace.hopper@example.com', source: 'event' })).data.id).toBe(
			'lead_0002',
		);
		await upsert({ external_id: 'crm-1002', email: 'grace@navy.example.com' });
		const afterChange = await upsert({ email: 'GRACE.HOPPER@example.com' });
		expect([afterChange.status, afterChange.data.id]).toEqual([200, twin.data.id]);
	});

	it('records consent in custom_fields and stamps recorded_at when missing', async () => {
		const { data } = await upsert({
			phone: '+15550001111',
			custom_fields: { consent: { status: 'granted', channel: 'sms' } },
		});
		const consent = data.custom_fields.consent as Record<string, string>;
		expect(consent).toMatchObject({ status: 'granted', channel: 'sms' });
		expect(Date.parse(consent.recorded_at)).not.toBeNaN();
	});

	it('keeps when consent was recorded while an upsert repeats the same consent without a time; a changed consent gets a new time', async () => {
		// Ada's seeded consent: granted, email, recorded when the seed created her (in the past).
		const ada = sandbox.state.store.findLead('email', 'ada.lovelace@example.com');
		const seeded = ada?.custom_fields.consent as Record<string, string>;
		expect(Date.parse(seeded.recorded_at)).toBeLessThan(Date.now() - 60_000);

		const same = await upsert({
			email: 'ada.lovelace@example.com',
			custom_fields: { consent: { status: 'granted', channel: 'email', source: 'newsletter' } },
		});
		expect(same.data.custom_fields.consent).toEqual({
			status: 'granted',
			channel: 'email',
			source: 'newsletter',
			recorded_at: seeded.recorded_at,
		});

		const given = await upsert({
			email: 'ada.lovelace@example.com',
			custom_fields: {
				consent: { status: 'granted', channel: 'email', recorded_at: '2026-01-31T12:00:00Z' },
			},
		});
		expect((given.data.custom_fields.consent as Record<string, string>).recorded_at).toBe(
			'2026-01-31T12:00:00Z',
		);

		const changed = await upsert({
			email: 'ada.lovelace@example.com',
			custom_fields: { consent: { status: 'denied', channel: 'email' } },
		});
		expect(
			Date.parse((changed.data.custom_fields.consent as Record<string, string>).recorded_at),
		).toBeGreaterThan(Date.now() - 60_000);
	});

	it.each([
		['no identifier', { first_name: 'Nobody' }, /external_id, email, phone/],
		['a malformed email', { email: 'not-an-email' }, /email/],
		[
			'a consent status other than granted or denied',
			{ email: 'c@example.com', custom_fields: { consent: { status: 'maybe' } } },
			/granted, denied/,
		],
		['a read-only field', { email: 'c@example.com', id: 'lead_x' }, /id is set by the service/],
		['a field that is not a lead field', { email: 'c@example.com', nickname: 'C' }, /nickname/],
		['a non-string field', { email: 'c@example.com', phone: 5550100 }, /phone must be a string/],
	])('refuses %s with 422 validation_failed', async (_what, body, message) => {
		const { status, data } = await upsert(body);
		expect(status).toBe(422);
		expect(data.error.code).toBe(ERROR_CODES.validationFailed);
		expect(data.error.message).toMatch(message);
		expect(sandbox.state.stats.snapshot().leadsCreated).toBe(0);
	});

	it('filters by email (any case), external_id and source', async () => {
		const byEmail = await api().get<ListPage<Lead>>(ENDPOINTS.listLeads.path, {
			params: { email: 'ADA.Lovelace@example.com' },
		});
		expect(byEmail.data.data.map((lead) => lead.id)).toEqual(['lead_0001']);
		const byExternalId = await api().get<ListPage<Lead>>(ENDPOINTS.listLeads.path, {
			params: { external_id: 'crm-1005' },
		});
		expect(byExternalId.data.data.map((lead) => lead.id)).toEqual(['lead_0005']);
		const { items } = await readAll<Lead>(ENDPOINTS.listLeads.path, { source: 'web-form' });
		expect(items.length).toBe(5);
		expect(items.every((lead) => lead.source === 'web-form')).toBe(true);
	});

	it('pages through every lead with the cap of maxPageSize, each lead once', async () => {
		const { items, pages } = await readAll<Lead>(ENDPOINTS.listLeads.path);
		expect(items.length).toBe(12);
		expect(pages).toBe(3);
		expect(new Set(items.map((lead) => lead.id)).size).toBe(12);
	});

	it.each([['0'], ['101'], ['ten'], ['2.5']])('refuses limit=%s with 400', async (limit) => {
		const { status, data } = await api().get<ApiErrorBody>(ENDPOINTS.listLeads.path, {
			params: { limit },
		});
		expect(status).toBe(400);
		expect(data.error.message).toMatch(/limit/);
	});

	it('refuses a made-up cursor and one from another list', async () => {
		const made = await api().get<ApiErrorBody>(ENDPOINTS.listLeads.path, {
			params: { cursor: 'bm90IGEgY3Vyc29y' },
		});
		expect(made.status).toBe(400);
		expect(made.data.error.message).toMatch(/cursor/);
		const leads = await api().get<ListPage<Lead>>(ENDPOINTS.listLeads.path);
		const foreign = await api().get<ApiErrorBody>(ENDPOINTS.listThreads.path, {
			params: { cursor: leads.data.next_cursor },
		});
		expect(foreign.status).toBe(400);
	});

	it('answers 404 not_found for an unknown lead', async () => {
		const { status, data } = await api().get<ApiErrorBody>(
			buildPath(ENDPOINTS.getLead.path, { lead_id: 'lead_nope' }),
		);
		expect(status).toBe(404);
		expect(data.error.code).toBe(ERROR_CODES.notFound);
	});
});

describe('threads and messages', () => {
	it('lists threads, filtered by lead_id, and fetches one', async () => {
		const { items } = await readAll<Thread>(ENDPOINTS.listThreads.path);
		expect(items.length).toBe(18);
		const forLead = await api().get<ListPage<Thread>>(ENDPOINTS.listThreads.path, {
			params: { lead_id: 'lead_0002' },
		});
		expect(forLead.data.data.map((thread) => thread.id)).toEqual(['thr_0002', 'thr_0003']);
		const one = await api().get<Thread>(
			buildPath(ENDPOINTS.getThread.path, { thread_id: 'thr_0002' }),
		);
		expect(one.data).toMatchObject({ id: 'thr_0002', lead_id: 'lead_0002' });
		expect(
			(await api().get(buildPath(ENDPOINTS.getThread.path, { thread_id: 'thr_nope' }))).status,
		).toBe(404);
	});

	it('masks message content unless the key holds conversations:read:sensitive', async () => {
		const path = buildPath(ENDPOINTS.listMessages.path, { thread_id: 'thr_0001' });
		const full = await api(KEYS.full).get<ListPage<Message>>(path);
		const masked = await api(KEYS.readOnly).get<ListPage<Message>>(path);
		expect(full.data.data.every((message) => !message.masked)).toBe(true);
		expect(full.data.data[0].content).toContain('ada.lovelace@example.com');
		expect(masked.data.data.every((message) => message.masked)).toBe(true);
		expect(masked.data.data.map((message) => message.id)).toEqual(
			full.data.data.map((message) => message.id),
		);
		for (const [index, message] of masked.data.data.entries()) {
			expect(message.content).not.toBe(full.data.data[index].content);
			expect(message.content).not.toMatch(/lovelace|@example/);
			expect(message.content.length).toBe(full.data.data[index].content.length);
		}
		expect((await api(KEYS.noSensitive).get<ListPage<Message>>(path)).data.data[0].masked).toBe(
			true,
		);
	});
});

describe('campaigns', () => {
	it('lists and fetches campaigns', async () => {
		const list = await api(KEYS.readOnly).get<ListPage<Campaign>>(ENDPOINTS.listCampaigns.path);
		expect(list.data.data.map((campaign) => campaign.status)).toEqual([
			'draft',
			'approved',
			'active',
		]);
		const one = await api(KEYS.readOnly).get<Campaign>(
			buildPath(ENDPOINTS.getCampaign.path, { campaign_id: 'cmp_0002' }),
		);
		expect(one.data.name).toBe('Webinar follow-up');
	});

	it('dispatches: queued, campaign changed, counted, campaign.updated emitted', async () => {
		const path = buildPath(ENDPOINTS.dispatchCampaign.path, { campaign_id: 'cmp_0002' });
		const before = sandbox.state.store.campaigns.get('cmp_0002');
		const { status, data } = await api().post<DispatchResult>(
			path,
			{ lead_ids: ['lead_0001', 'lead_0002'] },
			{ headers: { 'Idempotency-Key': randomUUID() } },
		);
		expect(status).toBe(202);
		expect(data).toEqual({
			campaign_id: 'cmp_0002',
			dispatch_id: data.dispatch_id,
			status: 'queued',
		});
		expect(data.dispatch_id).toMatch(/^dsp_/);
		const after = (
			await api().get<Campaign>(buildPath(ENDPOINTS.getCampaign.path, { campaign_id: 'cmp_0002' }))
		).data;
		expect(after.status).not.toBe(before?.status);
		expect(after.updated_at).not.toBe(before?.updated_at);
		expect(sandbox.state.stats.snapshot().dispatches).toBe(1);
		expect(
			sandbox.state.deliveries.listEvents().map((event) => [event.type, event.data.id]),
		).toEqual([['campaign.updated', 'cmp_0002']]);
	});

	it('refuses unknown lead ids with 422 and unknown campaigns with 404', async () => {
		const path = buildPath(ENDPOINTS.dispatchCampaign.path, { campaign_id: 'cmp_0002' });
		const unknown = await api().post<ApiErrorBody>(
			path,
			{ lead_ids: ['lead_0001', 'lead_ghost'] },
			{ headers: { 'Idempotency-Key': randomUUID() } },
		);
		expect(unknown.status).toBe(422);
		expect(unknown.data.error.code).toBe(ERROR_CODES.validationFailed);
		expect(unknown.data.error.message).toContain('lead_ghost');
		const missing = await api().post(
			buildPath(ENDPOINTS.dispatchCampaign.path, { campaign_id: 'cmp_9' }),
			{},
			{ headers: { 'Idempotency-Key': randomUUID() } },
		);
		expect(missing.status).toBe(404);
		expect(sandbox.state.stats.snapshot().dispatches).toBe(0);
	});
});

describe('assistant takeover', () => {
	const takeover = (leadId: string) =>
		api().post<TakeoverResult>(buildPath(ENDPOINTS.assistantTakeover.path, { lead_id: leadId }), {
			note: 'from a test',
		});

	it('sends the greeting when consent is granted', async () => {
		const { status, data } = await takeover('lead_0001');
		expect(status).toBe(200);
		expect(data).toEqual({
			lead_id: 'lead_0001',
			status: 'assistant_active',
			greeting: { sent: true },
		});
		const thread = sandbox.state.store.threadsOf('lead_0001').at(-1);
		expect(thread?.status).toBe('assistant_active');
		const messages = await api().get<ListPage<Message>>(
			buildPath(ENDPOINTS.listMessages.path, { thread_id: thread?.id ?? '' }),
		);
		expect(messages.data.data.at(-1)?.direction).toBe('outbound');
		expect(messages.data.data.at(-1)?.content).toContain('assistant');
		expect(sandbox.state.stats.snapshot().takeovers).toBe(1);
	});

	it.each([
		['denied', 'lead_0003', 'consent_not_granted'],
		['missing', 'lead_0004', 'consent_missing'],
	])('does not greet when consent is %s', async (_what, leadId, reason) => {
		const messagesBefore = sandbox.state.store.messages.size;
		const { data } = await takeover(leadId);
		expect(data).toEqual({
			lead_id: leadId,
			status: 'assistant_active',
			greeting: { sent: false, reason },
		});
		expect(sandbox.state.store.messages.size).toBe(messagesBefore);
	});

	it('answers 404 for an unknown lead', async () => {
		expect((await takeover('lead_ghost')).status).toBe(404);
	});
});

describe('webhook subscriptions', () => {
	const create = (body: unknown, key: string = KEYS.full) =>
		api(key).post<Subscription & ApiErrorBody>(ENDPOINTS.createSubscription.path, body, {
			headers: { 'Idempotency-Key': randomUUID() },
		});

	it('returns the whsec_ secret once, on creation only', async () => {
		const created = await create({
			url: 'https://hooks.example.com/svc',
			events: ['lead.created', 'some.future.kind'],
		});
		expect(created.status).toBe(201);
		expect(created.data).toMatchObject({
			url: 'https://hooks.example.com/svc',
			events: ['lead.created', 'some.future.kind'],
		});
		expect(created.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
		expect(Buffer.from((created.data.secret ?? '').slice('whsec_'.length), 'base64')).toHaveLength(
			24,
		);

		const fetched = await api().get<Subscription>(
			buildPath(ENDPOINTS.getSubscription.path, { subscription_id: created.data.id }),
		);
		expect(fetched.data).toEqual({
			id: created.data.id,
			url: created.data.url,
			events: created.data.events,
			created_at: created.data.created_at,
		});
		const listed = await api().get<ListPage<Subscription>>(ENDPOINTS.listSubscriptions.path);
		expect(listed.data.data).toEqual([fetched.data]);
		expect(sandbox.state.stats.snapshot().subscriptionsCreated).toBe(1);
	});

	it.each([
		['an http URL', { url: 'http://hooks.example.com/svc', events: ['lead.created'] }, /url/],
		['a URL that does not parse', { url: 'not a url', events: ['lead.created'] }, /url/],
		[
			'a loopback host',
			{ url: 'https://127.0.0.1:8443/hook', events: ['lead.created'] },
			/loopback/,
		],
		['localhost', { url: 'https://localhost/hook', events: ['lead.created'] }, /loopback/],
		['IPv6 loopback', { url: 'https://[::1]/hook', events: ['lead.created'] }, /loopback/],
		['no events', { url: 'https://hooks.example.com/svc', events: [] }, /events/],
		[
			'events that are not strings',
			{ url: 'https://hooks.example.com/svc', events: [1] },
			/events/,
		],
	])('refuses %s with 400', async (_what, body, message) => {
		const { status, data } = await create(body);
		expect(status).toBe(400);
		expect(data.error.code).toBe(ERROR_CODES.invalidRequest);
		expect(data.error.message).toMatch(message);
	});

	it('accepts loopback hosts when allowLoopbackWebhooks is set', async () => {
		const local = await startSandbox({ allowLoopbackWebhooks: true });
		try {
			const response = await client(local.url, KEYS.full).post(ENDPOINTS.createSubscription.path, {
				url: 'https://127.0.0.1:8443/hook',
				events: ['lead.created'],
			});
			expect(response.status).toBe(201);
		} finally {
			await local.close();
		}
	});

	it('pages the list and deletes (then 404)', async () => {
		const ids: string[] = [];
		for (let n = 0; n < PAGE + 2; n++)
			ids.push(
				(await create({ url: `https://hooks.example.com/${n}`, events: ['lead.created'] })).data.id,
			);
		const { items, pages } = await readAll<Subscription>(ENDPOINTS.listSubscriptions.path);
		expect(items.map((subscription) => subscription.id)).toEqual(ids);
		expect(pages).toBe(2);
		expect(items.some((subscription) => 'secret' in subscription)).toBe(false);

		const path = buildPath(ENDPOINTS.deleteSubscription.path, { subscription_id: ids[0] });
		expect((await api().delete(path)).data).toEqual({ id: ids[0], deleted: true });
		expect((await api().get(path)).status).toBe(404);
		expect((await api().delete(path)).status).toBe(404);
	});
});
