/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- throwaway test values, not secrets */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { create } from '../../nodes/Svc/actions/webhookSubscription/create';
import { UUID_PATTERN } from '../../nodes/Svc/contract';
import { shutdownEngine } from '../../harness/engine';
import {
	FULL_KEY,
	LEGACY_KEY,
	NO_SENSITIVE_KEY,
	READ_ONLY_KEY,
	requestsTo,
	runSvc,
	useSandbox,
	visibleText,
} from '../../harness/engine/svc';

const sandbox = useSandbox();
afterAll(async () => await shutdownEngine());

describe('Account', () => {
	it('Get Current Identity sends the Bearer key and the contract headers, never X-API-Key', async () => {
		const result = await runSvc(sandbox(), { resource: 'account', operation: 'getMe' });
		expect(result.error).toBeUndefined();
		const me = result.output[0].json as { account: IDataObject; key: IDataObject };
		expect(me.key).toMatchObject({ environment: 'test', legacy: false });
		expect(JSON.stringify(me)).not.toContain(FULL_KEY);
		const [request] = requestsTo(sandbox(), 'GET /v1/me');
		expect(request.headers.authorization).toBe(`Bearer ${FULL_KEY}`);
		expect(request.headers.accept).toBe('application/json');
		expect(request.headers['x-api-key']).toBeUndefined();
		expect(request.headers['idempotency-key']).toBeUndefined();
	});

	it('a legacy key works and the node recommends rotation', async () => {
		const result = await runSvc(
			sandbox(),
			{ resource: 'account', operation: 'getMe' },
			{ apiKey: LEGACY_KEY },
		);
		expect((result.output[0].json.key as IDataObject).legacy).toBe(true);
		expect(result.hints.map((hint) => hint.message).join(' ')).toMatch(
			/legacy ok_… API key.*rotate/i,
		);
	});

	it('a malformed key fails before any request and is never echoed', async () => {
		const badKey = 'svc_live_short';
		const result = await runSvc(
			sandbox(),
			{ resource: 'account', operation: 'getMe' },
			{ apiKey: badKey },
		);
		expect(result.error?.message).toMatch(
			/not in an accepted format.*svc_live_ or svc_test_ followed by/,
		);
		expect(visibleText(result)).not.toContain(badKey);
		expect(sandbox().state.requests.all()).toHaveLength(0);
	});

	it.each([
		['an operation', { resource: 'webhookSubscription', operation: '__CUSTOM_API_CALL__' }],
		['a resource', { resource: '__CUSTOM_API_CALL__' }],
	])(
		"Custom API Call as %s says to use n8n's HTTP Request node with the Svc API credential, and sends nothing",
		async (_label, parameters) => {
			const result = await runSvc(sandbox(), parameters);
			expect(result.error?.message).toBe(
				"Custom API Call runs in n8n's HTTP Request node, not in the Svc node",
			);
			expect(result.error?.description).toMatch(
				/HTTP Request node, set Authentication to Predefined Credential Type and Credential Type to Svc API/,
			);
			// n8n's editor renders the description as HTML: a <placeholder> would vanish.
			expect(result.error?.description).not.toMatch(/<[^>]*>/);
			expect(sandbox().state.requests.all()).toHaveLength(0);
		},
	);

	it('an unknown key gets a 401 that says invalid, revoked or mistyped, without the key', async () => {
		const unknown = 'svc_live_ThisKeyWasNeverIssued0001';
		const result = await runSvc(
			sandbox(),
			{ resource: 'account', operation: 'getMe' },
			{ apiKey: unknown },
		);
		expect(result.error?.message).toBe(
			'The API key was rejected (401): it is invalid, revoked or mistyped',
		);
		expect(visibleText(result)).not.toContain('ThisKeyWasNeverIssued');
		expect(requestsTo(sandbox(), 'GET /v1/me')).toHaveLength(1);
	});

	it('http to a non-loopback Base URL is refused before sending', async () => {
		const result = await runSvc(
			sandbox(),
			{ resource: 'account', operation: 'getMe' },
			{ baseUrl: 'http://api.example.com' },
		);
		expect(result.error?.message).toMatch(/must start with https:\/\//);
	});
});

describe('Lead', () => {
	const upsertDefineBelow = {
		resource: 'lead',
		operation: 'upsert',
		inputMode: 'defineBelow',
		email: 'new.person@example.com',
		additionalFields: {
			first_name: 'New',
			last_name: 'Person',
			external_id: 'crm-9001',
			source: 'web-form',
		},
		consentStatus: 'granted',
		consentDetails: {
			channel: 'email',
			source: 'signup-form',
			recorded_at: '2026-11-01T10:00:00.000Z',
		},
		customFields: { field: [{ name: 'plan', value: 'pro' }] },
	};

	it('Create or Update (Define Below) writes consent into custom_fields with an Idempotency-Key', async () => {
		const result = await runSvc(sandbox(), upsertDefineBelow);
		expect(result.error).toBeUndefined();
		expect(result.output[0].json).toMatchObject({
			email: 'new.person@example.com',
			external_id: 'crm-9001',
			upsert_result: 'created',
		});
		const [request] = requestsTo(sandbox(), 'POST /v1/leads');
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.headers['idempotency-key']).toMatch(UUID_PATTERN);
		expect(request.body).toEqual({
			email: 'new.person@example.com',
			first_name: 'New',
			last_name: 'Person',
			external_id: 'crm-9001',
			source: 'web-form',
			custom_fields: {
				plan: 'pro',
				consent: {
					status: 'granted',
					channel: 'email',
					source: 'signup-form',
					recorded_at: '2026-11-01T10:00:00.000Z',
				},
			},
		});
		expect(sandbox().state.stats.snapshot().leadsCreated).toBe(1);
	});

	it('a second execution updates the same lead (matched by external ID)', async () => {
		await runSvc(sandbox(), upsertDefineBelow);
		const second = await runSvc(sandbox(), { ...upsertDefineBelow, email: 'changed@example.com' });
		expect(second.output[0].json).toMatchObject({
			email: 'changed@example.com',
			upsert_result: 'updated',
		});
		expect(sandbox().state.stats.snapshot()).toMatchObject({ leadsCreated: 1, leadsUpdated: 1 });
	});

	it('running Create or Update again with the same consent and no time leaves when consent was recorded', async () => {
		const parameters = {
			resource: 'lead',
			operation: 'upsert',
			inputMode: 'defineBelow',
			email: 'ada.lovelace@example.com',
			consentStatus: 'granted',
			consentDetails: { channel: 'email' },
		};
		const seeded = sandbox().state.store.findLead('email', 'ada.lovelace@example.com')
			?.custom_fields.consent as IDataObject;
		const first = await runSvc(sandbox(), parameters);
		const second = await runSvc(sandbox(), parameters);
		expect([first.error, second.error]).toEqual([undefined, undefined]);
		const stored = sandbox().state.store.findLead('email', 'ada.lovelace@example.com')
			?.custom_fields.consent as IDataObject;
		expect(stored).toMatchObject({
			status: 'granted',
			channel: 'email',
			recorded_at: seeded.recorded_at,
		});
		// The node sent no time of its own: the record's time is the one the source gave first.
		expect(
			requestsTo(sandbox(), 'POST /v1/leads').map(
				(request) =>
					(request.body as { custom_fields: { consent: IDataObject } }).custom_fields.consent,
			),
		).toEqual([
			{ status: 'granted', channel: 'email' },
			{ status: 'granted', channel: 'email' },
		]);
	});

	it('Map Automatically turns each item into a lead, in input order, paired to its item', async () => {
		const items = [
			{ Email: 'a@example.com', firstName: 'A', consent_status: 'granted', plan: 'free' },
			{ email: 'b@example.com', 'First Name': 'B', custom_fields: { tier: 2 } },
			{ external_id: 'crm-c', phone: '+4790000000', row_number: 3 },
		];
		const result = await runSvc(
			sandbox(),
			{
				resource: 'lead',
				operation: 'upsert',
				inputMode: 'mapAutomatically',
				options: { ignoreFields: 'row_number' },
			},
			{ items },
		);
		expect(result.error).toBeUndefined();
		expect(
			result.output.map((item) => [item.json.email ?? item.json.external_id, item.pairedItem]),
		).toEqual([
			['a@example.com', { item: 0 }],
			['b@example.com', { item: 1 }],
			['crm-c', { item: 2 }],
		]);
		const bodies = requestsTo(sandbox(), 'POST /v1/leads').map(
			(request) => request.body as IDataObject,
		);
		expect(bodies).toContainEqual({
			email: 'a@example.com',
			first_name: 'A',
			custom_fields: { plan: 'free', consent: { status: 'granted' } },
		});
		expect(bodies).toContainEqual({
			email: 'b@example.com',
			first_name: 'B',
			custom_fields: { tier: 2 },
		});
		expect(bodies).toContainEqual({ external_id: 'crm-c', phone: '+4790000000' });
		const keys = new Set(
			requestsTo(sandbox(), 'POST /v1/leads').map((request) => request.headers['idempotency-key']),
		);
		expect(keys.size).toBe(3);
	});

	it("Define Below with expressions reads each item's own values, nested ones too, beside fixed ones", async () => {
		const items = [
			{ email: 'x1@example.com', name: 'X1', order: 'order-x1' },
			{ email: 'x2@example.com', name: 'X2', order: 'order-x2' },
			{ email: 'x3@example.com', name: 'X3', order: 'order-x3' },
		];
		const parameters = {
			resource: 'lead',
			operation: 'upsert',
			inputMode: 'defineBelow',
			email: '={{ $json.email }}',
			additionalFields: { first_name: '={{ $json.name }}', source: 'web-form' },
			customFields: { field: [{ name: 'plan', value: 'pro' }] },
			options: { idempotencyKey: '={{ $json.order }}' },
		};
		const first = await runSvc(sandbox(), parameters, { items });
		expect(first.error).toBeUndefined();
		const sent = requestsTo(sandbox(), 'POST /v1/leads');
		expect(sent.map((request) => request.body)).toEqual(
			items.map((item) => ({
				email: item.email,
				first_name: item.name,
				source: 'web-form',
				custom_fields: { plan: 'pro' },
			})),
		);
		expect(new Set(sent.map((request) => request.headers['idempotency-key'])).size).toBe(3);
		// The keys come from each item's order: a second execution sends the same three.
		await runSvc(sandbox(), parameters, { items });
		const again = requestsTo(sandbox(), 'POST /v1/leads').slice(3);
		expect(again.map((request) => request.headers['idempotency-key'])).toEqual(
			sent.map((request) => request.headers['idempotency-key']),
		);
	});

	it('refuses a lead without email, phone or external ID, naming the item, and sends nothing', async () => {
		const result = await runSvc(
			sandbox(),
			{ resource: 'lead', operation: 'upsert', inputMode: 'mapAutomatically' },
			{ items: [{ email: 'ok@example.com' }, { name: 'nobody' }] },
		);
		expect(result.error?.message).toBe('The lead needs an email, a phone or an external ID');
		expect((result.error as unknown as { context: IDataObject }).context.itemIndex).toBe(1);
	});

	it('with Continue On Fail, bad items become error items paired to their input and good ones go through', async () => {
		const result = await runSvc(
			sandbox(),
			{ resource: 'lead', operation: 'upsert', inputMode: 'mapAutomatically' },
			{
				items: [
					{ email: 'ok@example.com' },
					{ email: 'not-an-email' },
					{ phone: '+4712345678', consent_status: 'maybe' },
				],
				settings: { onError: 'continueRegularOutput' },
			},
		);
		expect(result.output).toHaveLength(3);
		expect(result.output[0].json.upsert_result).toBe('created');
		expect(result.output[1]).toMatchObject({
			json: { error: '"not-an-email" is not a valid email address' },
			pairedItem: { item: 1 },
		});
		expect(result.output[2]).toMatchObject({
			json: { error: 'Consent needs a status of "granted" or "denied"' },
			pairedItem: { item: 2 },
		});
		expect(requestsTo(sandbox(), 'POST /v1/leads')).toHaveLength(1);
	});

	it('a user-supplied Idempotency Key: a UUID is sent as given, other text is a key that holds across executions', async () => {
		const key = '3f1c2b9e-8d7a-4c6b-9e5f-1a2b3c4d5e6f';
		await runSvc(sandbox(), { ...upsertDefineBelow, options: { idempotencyKey: key } });
		expect(requestsTo(sandbox(), 'POST /v1/leads')[0].headers['idempotency-key']).toBe(key);

		const before = sandbox().state.stats.snapshot();
		const textKeyed = {
			...upsertDefineBelow,
			email: 'order-1001@example.com',
			additionalFields: { first_name: 'Order', external_id: 'crm-order-1001' },
			options: { idempotencyKey: 'order-1001' },
		};
		const first = await runSvc(sandbox(), textKeyed);
		const again = await runSvc(sandbox(), textKeyed);
		const [, firstSent, againSent] = requestsTo(sandbox(), 'POST /v1/leads');
		expect(firstSent.headers['idempotency-key']).toMatch(
			/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
		);
		expect(againSent.headers['idempotency-key']).toBe(firstSent.headers['idempotency-key']);
		expect(again.output[0].json).toEqual(first.output[0].json);
		const after = sandbox().state.stats.snapshot();
		expect([
			after.leadsCreated - before.leadsCreated,
			after.leadsUpdated - before.leadsUpdated,
			after.replays - before.replays,
		]).toEqual([1, 0, 1]);
	});

	it('the same key with another body is explained as idempotency reuse (422)', async () => {
		const key = '3f1c2b9e-8d7a-4c6b-9e5f-1a2b3c4d5e6f';
		await runSvc(sandbox(), { ...upsertDefineBelow, options: { idempotencyKey: key } });
		const reused = await runSvc(sandbox(), {
			...upsertDefineBelow,
			email: 'other@example.com',
			options: { idempotencyKey: key },
		});
		expect(reused.error?.message).toBe(
			'The Idempotency-Key was already used for a different request (422)',
		);
	});

	it('Get by ID, from a resource locator', async () => {
		const result = await runSvc(sandbox(), {
			resource: 'lead',
			operation: 'get',
			leadId: { __rl: true, mode: 'id', value: 'lead_0003' },
		});
		expect(result.output[0].json).toMatchObject({ id: 'lead_0003', first_name: 'Alan' });
	});

	it("Get by the URL of the lead's dashboard page, simplified", async () => {
		const result = await runSvc(sandbox(), {
			resource: 'lead',
			operation: 'get',
			leadId: {
				__rl: true,
				mode: 'url',
				value: 'https://app.example.com/leads/lead_0001?tab=activity',
			},
			simplify: true,
		});
		expect(result.output[0].json).toEqual({
			id: 'lead_0001',
			email: expect.any(String) as unknown,
			phone: expect.anything() as unknown,
			first_name: 'Ada',
			last_name: 'Lovelace',
			external_id: 'crm-1001',
			source: 'web-form',
			consent_status: 'granted',
		});
	});

	it('Get of an unknown lead says not found', async () => {
		const result = await runSvc(sandbox(), {
			resource: 'lead',
			operation: 'get',
			leadId: { __rl: true, mode: 'id', value: 'lead_9999' },
		});
		expect(result.error?.message).toBe('The resource was not found (404)');
	});

	it('Get Many with Return All follows every page and keeps the filter on each', async () => {
		const result = await runSvc(sandbox(), {
			resource: 'lead',
			operation: 'getAll',
			returnAll: true,
			filters: { source: 'web-form' },
		});
		expect(result.output.length).toBe(5);
		expect(result.output.every((item) => item.json.source === 'web-form')).toBe(true);
		const all = await runSvc(sandbox(), { resource: 'lead', operation: 'getAll', returnAll: true });
		expect(all.output).toHaveLength(12);
		const pages = requestsTo(sandbox(), 'GET /v1/leads');
		expect(pages.length).toBeGreaterThanOrEqual(4);
		expect(pages.filter((page) => page.query.source === 'web-form').length).toBeGreaterThanOrEqual(
			1,
		);
		expect(pages.slice(0, -3).every((page) => page.query.source === 'web-form')).toBe(true);
	});

	it('Get Many with a Limit stops at the limit', async () => {
		const result = await runSvc(sandbox(), {
			resource: 'lead',
			operation: 'getAll',
			returnAll: false,
			limit: 7,
		});
		expect(result.output).toHaveLength(7);
	});

	it('a key without leads:write gets a 403 naming the scope', async () => {
		const result = await runSvc(sandbox(), upsertDefineBelow, { apiKey: READ_ONLY_KEY });
		expect(result.error?.message).toBe(
			'The API key lacks the scope "leads:write" that this operation needs (403)',
		);
	});
});

describe('Conversation', () => {
	it('Get Many Threads of one lead', async () => {
		const result = await runSvc(sandbox(), {
			resource: 'conversation',
			operation: 'getAllThreads',
			returnAll: true,
			filters: { lead_id: 'lead_0001' },
		});
		expect(result.output.length).toBeGreaterThanOrEqual(1);
		expect(result.output.every((item) => item.json.lead_id === 'lead_0001')).toBe(true);
		expect(requestsTo(sandbox(), 'GET /v1/threads')[0].query.lead_id).toBe('lead_0001');
	});

	it('Get Thread', async () => {
		const result = await runSvc(sandbox(), {
			resource: 'conversation',
			operation: 'getThread',
			threadId: { __rl: true, mode: 'list', value: 'thr_0001' },
		});
		expect(result.output[0].json).toMatchObject({ id: 'thr_0001', lead_id: 'lead_0001' });
	});

	it('Get Messages is masked without the sensitive scope, and says so once', async () => {
		const params = {
			resource: 'conversation',
			operation: 'getMessages',
			threadId: { __rl: true, mode: 'id', value: 'thr_0001' },
			returnAll: true,
		};
		// Two input items read the thread twice: still one hint.
		const masked = await runSvc(sandbox(), params, { apiKey: NO_SENSITIVE_KEY, items: [{}, {}] });
		expect(masked.output.length).toBeGreaterThanOrEqual(4);
		for (const item of masked.output) {
			expect(item.json.masked).toBe(true);
			// The reason is said once, in the hint, not on every message.
			expect(item.json).not.toHaveProperty('masked_reason');
		}
		const maskedHints = masked.hints.filter((hint) => hint.message.includes('masked'));
		expect(maskedHints).toHaveLength(1);
		expect(maskedHints[0].message).toBe(
			"Message content is masked: the API key lacks the conversations:read:sensitive scope. To read full content, create a key with that scope in the service's dashboard (Settings > API keys) and put it in the Svc API credential.",
		);
		const full = await runSvc(sandbox(), params, { apiKey: FULL_KEY });
		expect(
			full.output.every(
				(item) => item.json.masked === false && item.json.masked_reason === undefined,
			),
		).toBe(true);
		expect(full.hints.filter((hint) => hint.message.includes('masked'))).toEqual([]);
		expect(full.output.map((item) => item.json.content)).not.toEqual(
			masked.output.map((item) => item.json.content),
		);
	});

	it('Hand to Assistant says whether the greeting was sent, with an Idempotency-Key', async () => {
		const granted = await runSvc(sandbox(), {
			resource: 'conversation',
			operation: 'assistantTakeover',
			leadId: { __rl: true, mode: 'id', value: 'lead_0001' },
			note: 'hot lead',
		});
		expect(granted.output[0].json).toMatchObject({
			lead_id: 'lead_0001',
			status: 'assistant_active',
			greeting_sent: true,
		});
		const [request] = requestsTo(sandbox(), 'POST /v1/leads/{lead_id}/assistant-takeover');
		expect(request.body).toEqual({ note: 'hot lead' });
		expect(request.headers['idempotency-key']).toMatch(UUID_PATTERN);

		const denied = await runSvc(sandbox(), {
			resource: 'conversation',
			operation: 'assistantTakeover',
			leadId: { __rl: true, mode: 'id', value: 'lead_0003' },
		});
		expect(denied.output[0].json).toMatchObject({
			greeting_sent: false,
			greeting: { sent: false },
		});
		expect(denied.hints.map((hint) => hint.message).join(' ')).toMatch(
			/The assistant took over and sent the lead no greeting/,
		);
	});
});

describe('Campaign', () => {
	it('Get and Get Many', async () => {
		const one = await runSvc(sandbox(), {
			resource: 'campaign',
			operation: 'get',
			campaignId: { __rl: true, mode: 'id', value: 'cmp_0001' },
		});
		expect(one.output[0].json.id).toBe('cmp_0001');
		const many = await runSvc(sandbox(), {
			resource: 'campaign',
			operation: 'getAll',
			returnAll: true,
		});
		expect(many.output.map((item) => item.json.id)).toEqual(['cmp_0001', 'cmp_0002', 'cmp_0003']);
	});

	it('Dispatch is refused while not confirmed, and nothing is sent', async () => {
		const result = await runSvc(sandbox(), {
			resource: 'campaign',
			operation: 'dispatch',
			campaignId: { __rl: true, mode: 'id', value: 'cmp_0002' },
			leadIds: 'lead_0001',
		});
		expect(result.error?.message).toBe('Dispatch was not confirmed, so nothing was sent');
		expect(requestsTo(sandbox(), 'POST /v1/campaigns/{campaign_id}/dispatch')).toHaveLength(0);
	});

	it('Dispatch, confirmed, sends once with an Idempotency-Key and the chosen leads', async () => {
		const result = await runSvc(sandbox(), {
			resource: 'campaign',
			operation: 'dispatch',
			campaignId: { __rl: true, mode: 'id', value: 'cmp_0002' },
			confirmDispatch: true,
			leadIds: 'lead_0001, lead_0002',
		});
		expect(result.error).toBeUndefined();
		expect(result.output[0].json).toMatchObject({
			campaign_id: 'cmp_0002',
			status: 'queued',
			sent_to: 'listed_leads',
			lead_ids: ['lead_0001', 'lead_0002'],
			replayed: false,
		});
		const [request] = requestsTo(sandbox(), 'POST /v1/campaigns/{campaign_id}/dispatch');
		expect(request.body).toEqual({ lead_ids: ['lead_0001', 'lead_0002'] });
		expect(request.headers['idempotency-key']).toMatch(UUID_PATTERN);
		expect(sandbox().state.stats.snapshot().dispatches).toBe(1);
	});

	const dispatchTo = (campaignId: string, extra: INodeParameters): INodeParameters => ({
		resource: 'campaign',
		operation: 'dispatch',
		campaignId: { __rl: true, mode: 'id', value: campaignId },
		confirmDispatch: true,
		...extra,
	});

	it('Dispatch refuses a draft campaign and says why, unless a person switched on Send Campaigns Not Approved', async () => {
		const refused = await runSvc(sandbox(), dispatchTo('cmp_0001', { leadIds: 'lead_0001' }));
		expect(refused.error?.message).toBe(
			'Campaign "Spring welcome series" (cmp_0001) is draft, not approved, so nothing was sent',
		);
		expect(refused.error?.description).toMatch(
			/Approve the campaign in the service's dashboard first.*'Send Campaigns Not Approved'/,
		);
		expect(requestsTo(sandbox(), 'POST /v1/campaigns/{campaign_id}/dispatch')).toHaveLength(0);

		// An expression is not the person's switch: it counts as off.
		const byExpression = await runSvc(
			sandbox(),
			dispatchTo('cmp_0001', { leadIds: 'lead_0001', options: { allowUnapproved: '={{ true }}' } }),
		);
		expect(byExpression.error?.message).toMatch(/is draft, not approved/);
		expect(requestsTo(sandbox(), 'POST /v1/campaigns/{campaign_id}/dispatch')).toHaveLength(0);

		const allowed = await runSvc(
			sandbox(),
			dispatchTo('cmp_0001', { leadIds: 'lead_0001', options: { allowUnapproved: true } }),
		);
		expect(allowed.error).toBeUndefined();
		expect(allowed.output[0].json).toMatchObject({ campaign_id: 'cmp_0001', status: 'queued' });
		expect(requestsTo(sandbox(), 'POST /v1/campaigns/{campaign_id}/dispatch')).toHaveLength(1);
	});

	it('Dispatch sends to the whole audience only when Send To says so; listed leads need IDs; an expression in Send To is refused', async () => {
		const noIds = await runSvc(
			sandbox(),
			dispatchTo('cmp_0002', { audience: 'listedLeads', leadIds: '={{ "" }}' }),
		);
		expect(noIds.error?.message).toBe('No lead IDs were given, so nothing was sent');
		expect(noIds.error?.description).toContain("choose 'The Whole Audience'");

		const byExpression = await runSvc(
			sandbox(),
			dispatchTo('cmp_0002', { audience: '={{ "wholeAudience" }}', leadIds: 'lead_0001' }),
		);
		expect(byExpression.error?.message).toBe(
			"'Send To' is not one of its choices, so nothing was sent",
		);
		expect(requestsTo(sandbox(), 'POST /v1/campaigns/{campaign_id}/dispatch')).toHaveLength(0);

		const whole = await runSvc(sandbox(), dispatchTo('cmp_0002', { audience: 'wholeAudience' }));
		expect(whole.error).toBeUndefined();
		// No lead_ids: the service sends to the whole audience (n8n's request helper sends an empty object as no body).
		expect(
			requestsTo(sandbox(), 'POST /v1/campaigns/{campaign_id}/dispatch').map(
				(request) => request.body ?? {},
			),
		).toEqual([{}]);
	});

	it('Dispatch run again (another Execute step, the same campaign and leads) sends nothing and says so; Send Again, set by a person, sends again', async () => {
		const first = await runSvc(
			sandbox(),
			dispatchTo('cmp_0002', { leadIds: 'lead_0002, lead_0001' }),
		);
		expect(first.output[0].json).toMatchObject({ replayed: false, sent_to: 'listed_leads' });
		expect(first.hints).toEqual([]);

		// A new execution, the leads in another order: the same dispatch, answered by the first.
		const again = await runSvc(
			sandbox(),
			dispatchTo('cmp_0002', { leadIds: 'lead_0001,lead_0002' }),
		);
		expect(again.error).toBeUndefined();
		expect(again.output[0].json).toMatchObject({
			replayed: true,
			dispatch_id: first.output[0].json.dispatch_id,
			lead_ids: ['lead_0001', 'lead_0002'],
		});
		expect(again.hints.map((hint) => hint.message)).toEqual([
			"Already sent: this campaign was dispatched to the same leads in the last 24 hours, so nothing was sent again (replayed is true, with the first dispatch's ID). To send it again on purpose, switch on 'Send Again' in this node's options.",
		]);
		expect(sandbox().state.stats.snapshot().dispatches).toBe(1);

		// Other leads, or the whole audience, are another dispatch.
		const other = await runSvc(sandbox(), dispatchTo('cmp_0002', { leadIds: 'lead_0003' }));
		const whole = await runSvc(sandbox(), dispatchTo('cmp_0002', { audience: 'wholeAudience' }));
		expect([other, whole].map((run) => run.output[0].json.replayed)).toEqual([false, false]);
		expect(whole.output[0].json).toMatchObject({ sent_to: 'whole_audience' });
		expect(whole.output[0].json).not.toHaveProperty('lead_ids');
		expect(sandbox().state.stats.snapshot().dispatches).toBe(3);

		// An expression is not the person's switch: it counts as off.
		const byExpression = await runSvc(
			sandbox(),
			dispatchTo('cmp_0002', { leadIds: 'lead_0003', options: { sendAgain: '={{ true }}' } }),
		);
		expect(byExpression.output[0].json).toMatchObject({ replayed: true });
		expect(sandbox().state.stats.snapshot().dispatches).toBe(3);

		const sentAgain = await runSvc(
			sandbox(),
			dispatchTo('cmp_0002', { leadIds: 'lead_0003', options: { sendAgain: true } }),
		);
		expect(sentAgain.output[0].json).toMatchObject({ replayed: false });
		expect(sentAgain.output[0].json.dispatch_id).not.toBe(other.output[0].json.dispatch_id);
		expect(sandbox().state.stats.snapshot().dispatches).toBe(4);
	});

	it('Dispatch replayed by the service (same Idempotency Key) says so under the output', async () => {
		const parameters = dispatchTo('cmp_0002', {
			leadIds: 'lead_0001',
			options: { idempotencyKey: 'webinar-follow-up-2026-11' },
		});
		const first = await runSvc(sandbox(), parameters);
		expect(first.output[0].json).toMatchObject({ replayed: false });
		expect(first.hints.filter((hint) => hint.message.startsWith('Replayed'))).toEqual([]);
		const second = await runSvc(sandbox(), parameters);
		expect(second.output[0].json).toMatchObject({
			replayed: true,
			dispatch_id: first.output[0].json.dispatch_id,
		});
		expect(second.hints.map((hint) => hint.message)).toContain(
			'Replayed: the service had already applied this dispatch (same Idempotency-Key), so nothing was sent again.',
		);
		expect(sandbox().state.stats.snapshot().dispatches).toBe(1);
	});

	it('Dispatch without campaigns:danger names that scope', async () => {
		const result = await runSvc(
			sandbox(),
			{
				resource: 'campaign',
				operation: 'dispatch',
				campaignId: { __rl: true, mode: 'id', value: 'cmp_0002' },
				confirmDispatch: true,
				audience: 'wholeAudience',
			},
			{ apiKey: NO_SENSITIVE_KEY },
		);
		expect(result.error?.message).toBe(
			'The API key lacks the scope "campaigns:danger" that this operation needs (403)',
		);
		expect(result.error?.description).toContain('Settings > API keys');
	});
});

describe('Webhook Subscription', () => {
	it('Create, Get, Get Many, Delete', async () => {
		const created = await runSvc(sandbox(), {
			resource: 'webhookSubscription',
			operation: 'create',
			url: 'https://hooks.example.com/svc',
			events: ['lead.created'],
			otherEvents: 'lead.updated',
		});
		expect(created.error).toBeUndefined();
		const subscription = created.output[0].json as { id: string } & IDataObject;
		expect(subscription).toMatchObject({
			url: 'https://hooks.example.com/svc',
			events: ['lead.created', 'lead.updated'],
			secret: '[redacted]',
		});
		const [request] = requestsTo(sandbox(), 'POST /v1/webhook-subscriptions');
		expect(request.headers['idempotency-key']).toMatch(UUID_PATTERN);
		const realSecret = sandbox().state.store.subscriptions.get(subscription.id)?.secret;
		expect(realSecret).toMatch(/^whsec_/);
		expect(visibleText(created)).not.toContain(String(realSecret).slice(6));

		const got = await runSvc(sandbox(), {
			resource: 'webhookSubscription',
			operation: 'get',
			subscriptionId: subscription.id,
		});
		expect(got.output[0].json).toMatchObject({ id: subscription.id });
		expect(got.output[0].json.secret).toBeUndefined();
		const many = await runSvc(sandbox(), {
			resource: 'webhookSubscription',
			operation: 'getAll',
			returnAll: true,
		});
		expect(many.output.map((item) => item.json.id)).toContain(subscription.id);
		const deleted = await runSvc(sandbox(), {
			resource: 'webhookSubscription',
			operation: 'delete',
			subscriptionId: subscription.id,
		});
		expect(deleted.output[0].json).toEqual({ id: subscription.id, deleted: true });
		const again = await runSvc(sandbox(), {
			resource: 'webhookSubscription',
			operation: 'get',
			subscriptionId: subscription.id,
		});
		expect(again.error?.message).toBe('The resource was not found (404)');
	});

	it('Create with Include Signing Secret, added as the editor adds an option (at its default), returns the secret', async () => {
		const added = create.options?.find((option) => option.name === 'includeSecret')?.default;
		expect(added).toBe(true);
		const created = await runSvc(sandbox(), {
			resource: 'webhookSubscription',
			operation: 'create',
			url: 'https://hooks.example.com/a',
			events: ['campaign.updated'],
			options: { includeSecret: added },
		});
		expect(created.output[0].json.secret).toMatch(/^whsec_/);
	});

	it('refuses an http URL or no events before sending', async () => {
		const http = await runSvc(sandbox(), {
			resource: 'webhookSubscription',
			operation: 'create',
			url: 'http://hooks.example.com/svc',
			events: ['lead.created'],
		});
		expect(http.error?.message).toMatch(/must start with https:\/\//);
		const none = await runSvc(sandbox(), {
			resource: 'webhookSubscription',
			operation: 'create',
			url: 'https://hooks.example.com/svc',
			events: [],
		});
		expect(none.error?.message).toMatch(/at least one event/);
		expect(requestsTo(sandbox(), 'POST /v1/webhook-subscriptions')).toHaveLength(0);
	});
});

describe('an n8n evaluation run (mode evaluation) messages no lead unless a person allows it', () => {
	const takeover: INodeParameters = {
		resource: 'conversation',
		operation: 'assistantTakeover',
		leadId: { __rl: true, mode: 'id', value: 'lead_0001' },
	};
	const dispatch: INodeParameters = {
		resource: 'campaign',
		operation: 'dispatch',
		campaignId: { __rl: true, mode: 'id', value: 'cmp_0002' },
		confirmDispatch: true,
		leadIds: 'lead_0001',
	};
	const routes = () =>
		sandbox()
			.state.requests.all()
			.filter((request) => request.route !== null)
			.map((request) => request.route);

	it.each([
		['Hand to Assistant', takeover, 'Conversation Hand to Assistant'],
		['Dispatch', dispatch, 'Campaign Dispatch'],
	])(
		'%s answers each item with what it did not send, and a hint; the service gets nothing',
		async (_label, parameters, name) => {
			const result = await runSvc(sandbox(), parameters, {
				mode: 'evaluation',
				items: [{}, {}],
			});
			expect(result.error).toBeUndefined();
			const message = `Not sent: n8n is running this workflow as an evaluation, and ${name} messages real leads. Nothing reached the service. To send during evaluations, a person switches on 'Send During Evaluations' in the node's options.`;
			expect(result.output.map((item) => item.json)).toEqual([
				{ sent: false, reason: 'evaluation', message },
				{ sent: false, reason: 'evaluation', message },
			]);
			expect(result.hints.map((hint) => hint.message)).toEqual([message]);
			expect(routes()).toEqual([]);
		},
	);

	it("an expression in 'Send During Evaluations' counts as off; the person's switch sends, once", async () => {
		const byExpression = await runSvc(
			sandbox(),
			{ ...takeover, options: { sendDuringEvaluations: '={{ true }}' } },
			{ mode: 'evaluation' },
		);
		expect(byExpression.output[0].json).toMatchObject({ sent: false, reason: 'evaluation' });
		expect(routes()).toEqual([]);
		const allowed = await runSvc(
			sandbox(),
			{ ...takeover, options: { sendDuringEvaluations: true } },
			{ mode: 'evaluation' },
		);
		expect(allowed.output[0].json).toMatchObject({ status: 'assistant_active' });
		expect(routes()).toEqual(['POST /v1/leads/{lead_id}/assistant-takeover']);
	});

	it('reads and other writes run as usual in an evaluation', async () => {
		const read = await runSvc(
			sandbox(),
			{
				resource: 'lead',
				operation: 'get',
				leadId: { __rl: true, mode: 'id', value: 'lead_0001' },
			},
			{ mode: 'evaluation' },
		);
		expect(read.output[0].json.id).toBe('lead_0001');
		expect(routes()).toEqual(['GET /v1/leads/{lead_id}']);
	});
});
