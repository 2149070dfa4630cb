/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- throwaway test values, not secrets */
import type { ApiErrorBody } from '../../nodes/Svc/contract';
import { ERROR_CODES } from '../../nodes/Svc/contract';
import type { AdminEndpoint } from '../../sandbox/admin';
import type { Sandbox } from '../../sandbox';
import { startSandbox } from '../../sandbox';
import { client } from './helpers';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
	await sandbox.close();
});
beforeEach(() => sandbox.state.reset());

const admin = () => client(sandbox.url);

/** A request a listed endpoint accepts: its `{name}` segments filled, a body where it needs one. */
function sample(endpoint: AdminEndpoint): { url: string; body?: unknown } {
	const url = endpoint.path
		.replace('{event_id}', 'evt_unknown')
		.replace('{campaign_id}', 'cmp_0001');
	const bodies: Record<string, unknown> = {
		'PUT /__admin/faults': { rules: [] },
		'PUT /__admin/rate-limit': { requestsPerSecond: null },
		'POST /__admin/keys': { key: 'svc_test_AdminIndexKey0000000001', scopes: ['leads:read'] },
		'POST /__admin/events/emit': { type: 'lead.created', data: {} },
		'POST /__admin/leads': { email: 'index@example.com' },
		'POST /__admin/campaigns/{campaign_id}/touch': { status: 'approved' },
	};
	return { url, body: bodies[`${endpoint.method} ${endpoint.path}`] };
}

describe('admin API index', () => {
	it('GET /__admin/ and /__admin list every endpoint with method, path and a description', async () => {
		const withSlash = await admin().get<{ endpoints: AdminEndpoint[] }>('/__admin/');
		const without = await admin().get<{ endpoints: AdminEndpoint[] }>('/__admin');
		expect(withSlash.status).toBe(200);
		expect(without.status).toBe(200);
		expect(without.data).toEqual(withSlash.data);
		const { endpoints } = withSlash.data;
		expect(endpoints.length).toBeGreaterThan(15);
		for (const endpoint of endpoints) {
			expect(['GET', 'PUT', 'POST', 'DELETE']).toContain(endpoint.method);
			expect(endpoint.path).toMatch(/^\/__admin\//);
			expect(endpoint.description.trim().length).toBeGreaterThan(5);
		}
		expect(endpoints).toContainEqual(expect.objectContaining({ method: 'GET', path: '/__admin/' }));
		expect(endpoints).toContainEqual(
			expect.objectContaining({ method: 'POST', path: '/__admin/leads' }),
		);
		expect(endpoints).toContainEqual(
			expect.objectContaining({ method: 'POST', path: '/__admin/events/{event_id}/redeliver' }),
		);
		expect(new Set(endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path}`)).size).toBe(
			endpoints.length,
		);
	});

	it('every endpoint the index lists is served (no 404 or 405), and nothing else is', async () => {
		const { endpoints } = (await admin().get<{ endpoints: AdminEndpoint[] }>('/__admin/')).data;
		const unserved: string[] = [];
		for (const endpoint of endpoints) {
			const { url, body } = sample(endpoint);
			const { status, data } = await admin().request<Partial<ApiErrorBody>>({
				method: endpoint.method,
				url,
				data: body,
			});
			// A 404 about the thing asked for (an unknown event) is fine; one about the path is not.
			if (status === 405 || (status === 404 && /no admin endpoint/.test(data.error?.message ?? '')))
				unserved.push(`${endpoint.method} ${url}: ${status}`);
		}
		expect(unserved).toEqual([]);
		expect((await admin().get('/__admin/nothing-here')).status).toBe(404);
		expect((await admin().post('/__admin/')).status).toBe(405);
	});
});

describe('admin API errors', () => {
	/** Every listed path with its `{name}` segments filled by `value`, and the methods the index gives it. */
	async function pathsWithMethods(value: string): Promise<Map<string, string[]>> {
		const { endpoints } = (await admin().get<{ endpoints: AdminEndpoint[] }>('/__admin/')).data;
		const paths = new Map<string, string[]>();
		for (const { method, path } of endpoints) {
			const url = path.replace(/\{\w+\}/g, value);
			paths.set(url, [...(paths.get(url) ?? []), method]);
		}
		return paths;
	}

	it('answers 400 invalid_request, not 500, to a path segment that is not valid percent-encoding', async () => {
		const withParams = [...(await pathsWithMethods('%E0%A4%A')).entries()].filter(([url]) =>
			url.includes('%'),
		);
		expect(withParams.length).toBeGreaterThan(0);
		for (const [url, [method]] of withParams) {
			const { status, data, headers } = await admin().request<ApiErrorBody>({
				method,
				url,
				data: {},
			});
			expect([url, status]).toEqual([url, 400]);
			expect(headers['content-type']).toMatch(/^application\/json/);
			expect(data.error.code).toBe(ERROR_CODES.invalidRequest);
			expect(data.error.message).toMatch(/percent-encoding/);
			expect(data.error.request_id).toMatch(/^req_/);
		}
	});

	it('answers 405 with an Allow header naming the methods the path takes', async () => {
		for (const [url, methods] of await pathsWithMethods('x')) {
			const { status, headers } = await admin().patch(url);
			expect([url, status, headers.allow]).toEqual([url, 405, methods.join(', ')]);
		}
		expect((await admin().post('/__admin/')).headers.allow).toBe('GET');
		expect((await admin().post('/__admin/faults')).headers.allow).toBe('GET, PUT, DELETE');
	});
});
