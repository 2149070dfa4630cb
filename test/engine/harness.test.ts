/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- throwaway test values, not secrets */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IDataObject, INode } from 'n8n-workflow';

import { FixtureApi } from './__fixtures__/FixtureApi.credentials';
import { FixtureHttp } from './__fixtures__/FixtureHttp.node';
import { FixtureTrigger } from './__fixtures__/FixtureTrigger.node';
import {
	capturedLogs,
	chain,
	clearCapturedLogs,
	createTriggerHarness,
	errorOf,
	outputOf,
	runCredentialTest,
	runWorkflow,
	shutdownEngine,
	startNode,
} from '../../harness/engine/index';
import type { RunWorkflowOptions } from '../../harness/engine/index';

const TOKEN = 'secret-token-5f2c';

interface SeenRequest {
	method: string;
	path: string;
	headers: IncomingHttpHeaders;
	body: string;
}

/** A stand-in for the service: records every request, answers by path. */
function startService(): Promise<{
	server: Server;
	baseUrl: string;
	seen: SeenRequest[];
	failFlaky: (times: number) => void;
}> {
	const seen: SeenRequest[] = [];
	const subscriptions = new Set<string>();
	let flakyFailures = 0;
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
			const method = req.method ?? 'GET';
			seen.push({
				method,
				path,
				headers: req.headers,
				body: Buffer.concat(chunks).toString('utf8'),
			});
			const reply = (status: number, body?: IDataObject) => {
				res.writeHead(status, body ? { 'content-type': 'application/json' } : {});
				res.end(body ? JSON.stringify(body) : undefined);
			};
			const subscription = /^\/subscriptions\/(.+)$/.exec(path)?.[1];
			if (path === '/echo') return reply(200, { ok: true, url: req.url ?? '' });
			if (path === '/fail') return reply(500, { message: 'boom' });
			if (path === '/flaky')
				return flakyFailures-- > 0
					? reply(503, { message: 'try again' })
					: reply(200, { ok: true });
			if (path === '/me')
				return req.headers.authorization === `Bearer ${TOKEN}`
					? reply(200, { id: 'me' })
					: reply(401, { message: 'no' });
			if (path === '/subscriptions' && method === 'POST') {
				const id = `sub_${subscriptions.size + 1}`;
				subscriptions.add(id);
				return reply(201, { id });
			}
			if (subscription !== undefined && method === 'GET')
				return reply(subscriptions.has(subscription) ? 200 : 404, {});
			if (subscription !== undefined && method === 'DELETE')
				return reply(subscriptions.delete(subscription) ? 204 : 404);
			return reply(404, { message: 'no route' });
		});
	});
	return new Promise((resolve) =>
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as AddressInfo;
			resolve({
				server,
				baseUrl: `http://127.0.0.1:${port}`,
				seen,
				failFlaky: (times) => (flakyFailures = times),
			});
		}),
	);
}

let service: Awaited<ReturnType<typeof startService>>;

beforeAll(async () => {
	service = await startService();
});

afterAll(async () => {
	service.server.closeAllConnections();
	service.server.close();
	await shutdownEngine();
});

beforeEach(() => {
	service.seen.length = 0;
	clearCapturedLogs();
});

const HTTP_TYPE = 'n8n-nodes-fixture.fixtureHttp';

function httpNode(overrides: Partial<INode> = {}): INode {
	return {
		id: 'http',
		name: 'Http',
		type: HTTP_TYPE,
		typeVersion: 1,
		position: [200, 0],
		parameters: { path: '/echo' },
		credentials: { fixtureApi: { id: '1', name: 'Fixture account' } },
		...overrides,
	};
}

function workflow(node: INode, options: Partial<RunWorkflowOptions> = {}): RunWorkflowOptions {
	return {
		nodes: [startNode(), node],
		connections: chain('Start', node.name),
		nodeTypes: { [HTTP_TYPE]: new FixtureHttp() },
		credentialTypes: [new FixtureApi()],
		credentials: { fixtureApi: { token: TOKEN, baseUrl: service.baseUrl } },
		...options,
	};
}

describe('runWorkflow', () => {
	it('sends each item through n8n-core with the generic Bearer auth applied, keeping pairedItem', async () => {
		const run = await runWorkflow(
			workflow(httpNode(), {
				items: [1, 2, 3].map((n) => ({ json: { n } })),
				executionId: 'exec-42',
			}),
		);

		expect(run.status).toBe('success');
		expect(service.seen.map((request) => [request.path, request.headers.authorization])).toEqual([
			['/echo', `Bearer ${TOKEN}`],
			['/echo', `Bearer ${TOKEN}`],
			['/echo', `Bearer ${TOKEN}`],
		]);
		const output = outputOf(run, 'Http');
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output[2].json).toMatchObject({
			n: 3,
			executionId: 'exec-42',
			node: 'Http',
			response: { ok: true, url: '/echo?item=3' },
		});
	});

	it("turns a failure into an error item with onError 'continueRegularOutput'", async () => {
		const run = await runWorkflow(
			workflow(httpNode({ parameters: { path: '/fail' }, onError: 'continueRegularOutput' })),
		);

		expect(run.status).toBe('success');
		expect(errorOf(run, 'Http')).toBeUndefined();
		expect(outputOf(run, 'Http')).toEqual([
			{
				json: { error: 'The service was not able to process your request' },
				pairedItem: { item: 0 },
			},
		]);
	});

	it('stops the workflow with the node error without a continue setting', async () => {
		const run = await runWorkflow(workflow(httpNode({ parameters: { path: '/fail' } })));

		expect(run.status).toBe('error');
		expect(errorOf(run, 'Http')?.name).toBe('NodeApiError');
	});

	it('re-runs the node with retryOnFail, and keeps static data in the object it was given', async () => {
		service.failFlaky(2);
		const staticData: IDataObject = {};
		const node = httpNode({
			parameters: { path: '/flaky' },
			retryOnFail: true,
			maxTries: 3,
			waitBetweenTries: 10,
		});

		const run = await runWorkflow(workflow(node, { staticData }));

		expect(run.status).toBe('success');
		expect(service.seen.filter((request) => request.path === '/flaky')).toHaveLength(3);
		expect(staticData['node:Http']).toEqual({ executions: 3 });

		await runWorkflow(workflow(httpNode(), { staticData }));
		expect(staticData['node:Http']).toEqual({ executions: 4 });
	});

	it('captures n8n and node log lines, and the credential never reaches them', async () => {
		await runWorkflow(
			workflow(httpNode({ parameters: { path: '/fail' }, onError: 'continueRegularOutput' })),
		);

		const text = capturedLogs().map((log) => log.text);
		expect(text).toEqual(
			expect.arrayContaining([
				expect.stringContaining('Fixture HTTP calling the service'),
				expect.stringContaining('Running node "Http" started'),
			]),
		);
		expect(text.join('\n')).not.toContain(TOKEN);
	});
});

describe('runCredentialTest', () => {
	it("runs the credential's test request with authentication, as n8n's credential tester", async () => {
		await expect(
			runCredentialTest(new FixtureApi(), { token: TOKEN, baseUrl: `${service.baseUrl}/` }),
		).resolves.toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		expect(service.seen.map((request) => [request.path, request.headers.authorization])).toEqual([
			['/me', `Bearer ${TOKEN}`],
		]);
	});

	it('reports the HTTP failure as n8n does', async () => {
		const result = await runCredentialTest(new FixtureApi(), {
			token: 'wrong',
			baseUrl: service.baseUrl,
		});
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/401|Unauthorized/);
	});
});

describe('createTriggerHarness', () => {
	const TRIGGER_TYPE = 'n8n-nodes-fixture.fixtureTrigger';
	const webhookId = '6b1d2c8e-0a4f-4a57-9a5e-1f9e0c3b7d21';

	async function trigger() {
		return await createTriggerHarness({
			nodeType: TRIGGER_TYPE,
			nodeTypes: { [TRIGGER_TYPE]: new FixtureTrigger() },
			credentialTypes: [new FixtureApi()],
			credentials: { fixtureApi: { token: TOKEN, baseUrl: service.baseUrl } },
			node: {
				webhookId,
				parameters: { events: 'lead.created' },
				credentials: { fixtureApi: { id: '1', name: 'Fixture account' } },
			},
			webhookBaseUrl: 'https://localhost:5678/webhook',
		});
	}

	it('activates like n8n: checkExists, then create with the production URL, id kept in static data', async () => {
		const t = await trigger();
		expect(t.webhookUrl).toBe(`https://localhost:5678/webhook/${webhookId}/hook`);

		await expect(t.activate()).resolves.toBe(true);
		const created = service.seen.find((request) => request.method === 'POST');
		expect(created?.headers.authorization).toBe(`Bearer ${TOKEN}`);
		expect(JSON.parse(created?.body ?? '{}')).toEqual({
			url: t.webhookUrl,
			events: 'lead.created',
			mode: 'activate',
		});
		expect(t.staticData.subscriptionId).toBe('sub_1');

		await expect(t.activate()).resolves.toBe(false);

		delete t.staticData.subscriptionId;
		await expect(t.checkExists()).resolves.toBe(false);
		await expect(t.activate()).resolves.toBe(true);
		expect(t.staticData.subscriptionId).toBe('sub_2');

		await expect(t.delete()).resolves.toBe(true);
		expect(service.seen.at(-1)).toMatchObject({ method: 'DELETE', path: '/subscriptions/sub_2' });
		expect(t.staticData.subscriptionId).toBeUndefined();
	});

	it('delivers through WebhookContext: the node answers itself or returns items, static data persists', async () => {
		const t = await trigger();

		const refused = await t.deliver({ headers: { 'X-Fixture-Token': 'nope' }, rawBody: '{"a":1}' });
		expect(refused.webhookResponse).toEqual({ noWebhookResponse: true });
		expect(refused.response).toMatchObject({ statusCode: 401, body: { error: 'bad token' } });

		const accepted = await t.deliver({
			headers: { 'x-fixture-token': TOKEN },
			rawBody: Buffer.from('{"a":1}'),
		});
		expect(accepted.response).toBeUndefined();
		expect(accepted.webhookResponse.webhookResponse).toEqual({ received: true });
		expect(accepted.workflowData).toEqual([[{ json: { body: { a: 1 }, raw: '{"a":1}' } }]]);

		await t.deliver({ headers: { 'x-fixture-token': TOKEN }, rawBody: 'not json' });
		expect(t.staticData.deliveries).toBe(2);
	});
});
