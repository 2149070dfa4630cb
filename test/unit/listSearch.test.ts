import type { IDataObject, IHttpRequestOptions, ILoadOptionsFunctions } from 'n8n-workflow';

import { searchCampaigns, searchLeads, searchThreads } from '../../nodes/Svc/methods/listSearch';
import { fakeService } from './fake-service';

const leads = Array.from({ length: 130 }, (_, index) => ({
	id: `lead_${index}`,
	first_name: index === 101 ? 'Ada' : `P${index}`,
	last_name: 'X',
	email: `p${index}@example.com`,
}));

describe('list search for the resource pickers', () => {
	it('pages through the API with the service cursor as pagination token, and filters by name', async () => {
		const seen: IDataObject[] = [];
		const ctx = fakeService(leads, 100, seen) as unknown as ILoadOptionsFunctions;
		const first = await searchLeads.call(ctx);
		expect(first.results).toHaveLength(100);
		expect(first.results[0]).toEqual({ name: 'P0 X (p0@example.com)', value: 'lead_0' });
		expect(first.paginationToken).toBe('c_100');
		const second = await searchLeads.call(ctx, 'ada', first.paginationToken as string);
		expect(second.results).toEqual([{ name: 'Ada X (p101@example.com)', value: 'lead_101' }]);
		expect(second.paginationToken).toBeUndefined();
		expect(seen.map((qs) => qs.cursor)).toEqual([undefined, 'c_100']);
	});

	it('names campaigns by their name alone (n8n saves it with the choice, where a status would go stale), and finds them by status', async () => {
		const ctx = fakeService(
			[
				{ id: 'cmp_1', name: 'Spring', status: 'approved' },
				{ id: 'cmp_2', name: 'Winter', status: 'sending' },
			],
			100,
			[],
		) as unknown as ILoadOptionsFunctions;
		expect((await searchCampaigns.call(ctx)).results).toEqual([
			{ name: 'Spring', value: 'cmp_1' },
			{ name: 'Winter', value: 'cmp_2' },
		]);
		expect((await searchCampaigns.call(ctx, 'approved')).results).toEqual([
			{ name: 'Spring', value: 'cmp_1' },
		]);
	});
});

const grace = {
	id: 'lead_0001',
	first_name: 'Grace',
	last_name: 'Hopper',
	email: 'grace@example.com',
	phone: null,
	external_id: null,
};
const alan = {
	id: 'lead_0002',
	first_name: null,
	last_name: null,
	email: 'alan@example.com',
	phone: null,
	external_id: null,
};

/**
 * A service with one page of `threads` and the leads behind them. A lead ID listed in `refuse`
 * answers with that status instead; every request path is recorded.
 */
function threadService(
	threads: IDataObject[],
	leadsById: Record<string, IDataObject>,
	refuse: Record<string, number>,
	paths: string[],
): ILoadOptionsFunctions {
	const ctx = fakeService([], 100, []);
	ctx.helpers.httpRequestWithAuthentication = async (
		_type: string,
		options: IHttpRequestOptions,
	) => {
		const path = new URL(options.url).pathname;
		paths.push(path);
		if (path === '/v1/threads')
			return await Promise.resolve({
				statusCode: 200,
				headers: {},
				body: { data: threads, next_cursor: null },
			});
		const leadId = decodeURIComponent(path.slice('/v1/leads/'.length));
		const status = refuse[leadId] ?? (leadsById[leadId] ? 200 : 404);
		if (status === 200)
			return await Promise.resolve({ statusCode: 200, headers: {}, body: leadsById[leadId] });
		const code = status === 403 ? 'missing_scope' : 'not_found';
		return await Promise.resolve({
			statusCode: status,
			headers: {},
			body: {
				error: { code, message: code, required_scope: status === 403 ? 'leads:read' : undefined },
			},
		});
	};
	return ctx as unknown as ILoadOptionsFunctions;
}

describe('the thread picker', () => {
	const threads = [
		{
			id: 'thr_1',
			lead_id: 'lead_0001',
			channel: 'sms',
			status: 'assistant_active',
			last_message_at: null,
		},
		{ id: 'thr_2', lead_id: 'lead_0001', channel: 'email', status: 'open', last_message_at: null },
		{
			id: 'thr_3',
			lead_id: 'lead_0002',
			channel: 'whatsapp',
			status: 'closed',
			last_message_at: null,
		},
		{
			id: 'thr_4',
			lead_id: 'lead_0002',
			channel: 'web_chat',
			status: 'waiting-on-agent',
			last_message_at: null,
		},
	];

	it("names each thread by readable channel, the lead's name or email, and readable status", async () => {
		const paths: string[] = [];
		const result = await searchThreads.call(
			threadService(threads, { lead_0001: grace, lead_0002: alan }, {}, paths),
		);
		expect(result.results).toEqual([
			{ name: 'SMS with Grace Hopper (grace@example.com), assistant active', value: 'thr_1' },
			{ name: 'Email with Grace Hopper (grace@example.com), open', value: 'thr_2' },
			{ name: 'WhatsApp with alan@example.com, closed', value: 'thr_3' },
			{ name: 'Web chat with alan@example.com, waiting on agent', value: 'thr_4' },
		]);
		expect(result.paginationToken).toBeUndefined();
	});

	it('reads each distinct lead of the page once', async () => {
		const paths: string[] = [];
		await searchThreads.call(
			threadService(threads, { lead_0001: grace, lead_0002: alan }, {}, paths),
		);
		expect(paths.filter((path) => path === '/v1/threads')).toHaveLength(1);
		expect(paths.filter((path) => path.startsWith('/v1/leads/')).sort()).toEqual([
			'/v1/leads/lead_0001',
			'/v1/leads/lead_0002',
		]);
	});

	it("finds threads by the lead's name, email or ID, and by the API's channel and status words", async () => {
		const ctx = threadService(threads, { lead_0001: grace, lead_0002: alan }, {}, []);
		expect((await searchThreads.call(ctx, 'hopper')).results.map((item) => item.value)).toEqual([
			'thr_1',
			'thr_2',
		]);
		expect((await searchThreads.call(ctx, 'ALAN@')).results.map((item) => item.value)).toEqual([
			'thr_3',
			'thr_4',
		]);
		expect((await searchThreads.call(ctx, 'lead_0002')).results.map((item) => item.value)).toEqual([
			'thr_3',
			'thr_4',
		]);
		expect((await searchThreads.call(ctx, 'whatsapp')).results.map((item) => item.value)).toEqual([
			'thr_3',
		]);
		expect(
			(await searchThreads.call(ctx, 'assistant_active')).results.map((item) => item.value),
		).toEqual(['thr_1']);
		expect((await searchThreads.call(ctx, 'web_chat')).results.map((item) => item.value)).toEqual([
			'thr_4',
		]);
	});

	it('shows the lead ID when the lead is gone (404), without failing', async () => {
		const paths: string[] = [];
		const result = await searchThreads.call(
			threadService(threads, { lead_0001: grace }, {}, paths),
		);
		expect(result.results.map((item) => item.name)).toEqual([
			'SMS with Grace Hopper (grace@example.com), assistant active',
			'Email with Grace Hopper (grace@example.com), open',
			'WhatsApp with lead_0002, closed',
			'Web chat with lead_0002, waiting on agent',
		]);
		expect(paths.filter((path) => path.startsWith('/v1/leads/'))).toHaveLength(2);
	});

	it('shows lead IDs when the key lacks leads:read (403), and stops asking after the first refusal', async () => {
		const many = Array.from({ length: 30 }, (_, index) => ({
			id: `thr_${index}`,
			lead_id: `lead_${index}`,
			channel: 'sms',
			status: 'open',
			last_message_at: null,
		}));
		const refuse = Object.fromEntries(many.map((thread) => [thread.lead_id, 403]));
		const paths: string[] = [];
		const result = await searchThreads.call(threadService(many, {}, refuse, paths));
		expect(result.results).toHaveLength(30);
		expect(result.results[7]).toEqual({ name: 'SMS with lead_7, open', value: 'thr_7' });
		// Only the lookups already running when the first 403 came back.
		expect(paths.filter((path) => path.startsWith('/v1/leads/')).length).toBeLessThanOrEqual(8);
	});
});
