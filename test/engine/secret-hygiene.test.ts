/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- throwaway test values, not secrets */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { FaultRule } from '../../sandbox';
import { capturedLogs, clearCapturedLogs, shutdownEngine } from '../../harness/engine';
import {
	createSvcTrigger,
	FULL_KEY,
	NO_SENSITIVE_KEY,
	READ_ONLY_KEY,
	runSvc,
	useSandbox,
	visibleText,
	withoutBackoffJitter,
} from '../../harness/engine/svc';

/**
 * Secret hygiene across failure modes: after each one, the API key, its Authorization header
 * value and the signing secret appear in 0 bytes of the thrown error (message, description,
 * context, stack), the execution data, and every log line n8n's logger captured at debug level.
 */
const sandbox = useSandbox();

/**
 * A server that misbehaves on purpose: echoes the Authorization header, redirects elsewhere on
 * its own host (counting what reaches the target), or answers non-JSON.
 */
let rogue: Server;
let rogueUrl: string;
let redirectTargetHits = 0;
beforeAll(async () => {
	rogue = createServer((req, res) => {
		if (req.url?.startsWith('/moved')) {
			res
				.writeHead(301, {
					location: `${rogueUrl}/elsewhere${req.url.slice('/moved'.length)}`,
					'content-type': 'text/html',
				})
				.end('<html>Moved</html>');
			return;
		}
		if (req.url?.startsWith('/elsewhere')) redirectTargetHits++;
		if (req.url?.startsWith('/echo')) {
			res.writeHead(400, { 'content-type': 'application/json' }).end(
				JSON.stringify({
					error: { code: 'invalid_request', message: `bad header: ${req.headers.authorization}` },
				}),
			);
			return;
		}
		res
			.writeHead(200, { 'content-type': 'application/json' })
			.end(`<html>not json ${req.headers.authorization}</html>`);
	});
	await new Promise<void>((resolve) => rogue.listen(0, '127.0.0.1', resolve));
	rogueUrl = `http://127.0.0.1:${(rogue.address() as AddressInfo).port}`;
});
afterAll(async () => {
	await new Promise((resolve) => rogue.close(resolve));
	await shutdownEngine();
});

const getMe: INodeParameters = { resource: 'account', operation: 'getMe' };
const upsert: INodeParameters = {
	resource: 'lead',
	operation: 'upsert',
	inputMode: 'mapAutomatically',
};
const dispatch: INodeParameters = {
	resource: 'campaign',
	operation: 'dispatch',
	campaignId: { __rl: true, mode: 'id', value: 'cmp_0002' },
	confirmDispatch: true,
	audience: 'wholeAudience',
};
const fault = (rule: FaultRule) => () => sandbox().state.faults.set([rule]);

interface Mode {
	name: string;
	parameters: INodeParameters;
	apiKey?: string;
	baseUrl?: () => string;
	setup?: () => void;
	items?: IDataObject[];
	continueOnFail?: boolean;
}

const modes: Mode[] = [
	{
		name: '400 invalid request',
		parameters: getMe,
		setup: fault({ route: 'GET /v1/me', errorRate: 1, errorStatuses: [400] }),
	},
	{ name: '401 unknown key', parameters: getMe, apiKey: 'svc_live_UnknownKeyUnknownKey0001' },
	{ name: '403 missing scope', parameters: dispatch, apiKey: NO_SENSITIVE_KEY },
	{
		name: '403 read-only key writing',
		parameters: upsert,
		apiKey: READ_ONLY_KEY,
		items: [{ email: 'x@example.com' }],
	},
	{
		name: '404 not found',
		parameters: {
			resource: 'lead',
			operation: 'get',
			leadId: { __rl: true, mode: 'id', value: 'lead_none' },
		},
	},
	{
		name: '409 that never clears',
		parameters: upsert,
		items: [{ email: 'y@example.com' }],
		setup: fault({ route: 'POST /v1/leads', conflictRate: 1 }),
	},
	{
		name: '422 validation',
		parameters: { ...dispatch, audience: 'listedLeads', leadIds: 'lead_does_not_exist' },
	},
	{
		name: '429 that never clears',
		parameters: getMe,
		setup: fault({ route: 'GET /v1/me', rateLimitedRate: 1, retryAfterSeconds: 0 }),
	},
	{
		name: '500',
		parameters: getMe,
		setup: fault({ route: 'GET /v1/me', errorRate: 1, errorStatuses: [500] }),
	},
	{
		name: '502',
		parameters: getMe,
		setup: fault({ route: 'GET /v1/me', errorRate: 1, errorStatuses: [502] }),
	},
	{
		name: '503',
		parameters: getMe,
		setup: fault({ route: 'GET /v1/me', errorRate: 1, errorStatuses: [503] }),
	},
	{
		name: 'connection reset before the write',
		parameters: upsert,
		items: [{ email: 'z@example.com' }],
		setup: fault({ route: 'POST /v1/leads', resetBeforeRate: 1 }),
	},
	{
		name: 'connection reset after the write',
		parameters: upsert,
		items: [{ email: 'w@example.com' }],
		setup: fault({ route: 'POST /v1/leads', resetRate: 1 }),
	},
	{
		name: 'timeout',
		parameters: { ...getMe, options: { timeoutSeconds: 1 } },
		setup: fault({ route: 'GET /v1/me', hangRate: 0.5, errorRate: 0.5, seed: 3 }),
	},
	{ name: 'connection refused', parameters: getMe, baseUrl: () => 'http://127.0.0.1:9' },
	{ name: 'malformed key', parameters: getMe, apiKey: 'svc_live_Short!Key' },
	{ name: 'key pasted with "Bearer "', parameters: getMe, apiKey: `Bearer ${FULL_KEY}` },
	{
		name: 'http Base URL off loopback',
		parameters: getMe,
		baseUrl: () => 'http://api.example.com',
	},
	{ name: 'non-JSON response', parameters: getMe, baseUrl: () => rogueUrl },
	{ name: 'a redirect to another address', parameters: getMe, baseUrl: () => `${rogueUrl}/moved` },
	{
		name: 'server echoes the Authorization header',
		parameters: {
			resource: 'lead',
			operation: 'get',
			leadId: { __rl: true, mode: 'id', value: 'x' },
		},
		baseUrl: () => `${rogueUrl}/echo`,
	},
	{
		name: 'continue on fail with 401',
		parameters: getMe,
		apiKey: 'svc_live_UnknownKeyUnknownKey0002',
		continueOnFail: true,
	},
];

describe('no secret in errors, execution data or logs', () => {
	withoutBackoffJitter();
	it.each(modes.map((mode) => [mode.name, mode] as const))(
		'%s',
		async (_name, mode) => {
			mode.setup?.();
			clearCapturedLogs();
			const apiKey = mode.apiKey ?? FULL_KEY;
			const result = await runSvc(sandbox(), mode.parameters, {
				apiKey,
				baseUrl: mode.baseUrl?.(),
				items: mode.items,
				settings: mode.continueOnFail ? { onError: 'continueRegularOutput' } : {},
			});
			const failed =
				result.error !== undefined || result.output.some((item) => item.json.error !== undefined);
			expect(failed).toBe(true);
			const everything =
				visibleText(result) +
				JSON.stringify(result.run) +
				capturedLogs()
					.map((line) => line.text)
					.join('\n');
			const secretPart = apiKey.replace(/^Bearer /, '').replace(/^(svc|ok)_(live|test)_/, '');
			expect(everything).not.toContain(secretPart);
			expect(everything).not.toContain(`Bearer ${apiKey}`);
		},
		60_000,
	);
});

describe('a redirect', () => {
	it('is not followed: the key never reaches where it points, and the error says to fix the Base URL', async () => {
		redirectTargetHits = 0;
		const result = await runSvc(sandbox(), getMe, { baseUrl: `${rogueUrl}/moved` });
		expect(redirectTargetHits).toBe(0);
		expect(result.error).toMatchObject({
			message: 'The service answered with a redirect (301), which the node does not follow',
			description: expect.stringMatching(/Base URL of the Svc API credential/) as unknown,
			level: 'warning',
		});
	});
});

describe('the trigger keeps the key and the signing secret out of errors and logs', () => {
	it('create refused for a missing scope', async () => {
		clearCapturedLogs();
		const t = await createSvcTrigger(sandbox(), { apiKey: READ_ONLY_KEY });
		const error = (await t.activate().catch((caught: unknown) => caught)) as Error & {
			description?: string;
			context?: unknown;
		};
		expect(error.message).toMatch(/webhooks:write/);
		const text =
			JSON.stringify({
				message: error.message,
				description: error.description,
				context: error.context,
				stack: error.stack,
			}) +
			capturedLogs()
				.map((line) => line.text)
				.join('\n');
		expect(text).not.toContain(READ_ONLY_KEY.slice(9));
	});

	it('delete failing on the service, and deliveries with a wrong signature', async () => {
		clearCapturedLogs();
		const t = await createSvcTrigger(sandbox());
		await t.activate();
		// The trigger keeps the secret only sealed: the sandbox has it as issued.
		const { id } = t.staticData.subscription as { id: string };
		const secret = sandbox().state.store.subscriptions.get(id)?.secret ?? '';
		expect(secret).toMatch(/^whsec_/);
		const refused = await t.deliver({
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				'webhook-id': 'evt_1',
				'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
				'webhook-signature': 'v1,AAAA',
			},
			rawBody: '{}',
		});
		expect(refused.response?.statusCode).toBe(401);
		sandbox().state.faults.set([
			{
				route: 'DELETE /v1/webhook-subscriptions/{subscription_id}',
				errorRate: 1,
				errorStatuses: [500],
			},
		]);
		const error = (await t.delete().catch((caught: unknown) => caught)) as Error & {
			description?: string;
			context?: unknown;
		};
		expect(error.message).toMatch(/status 500/);
		const text =
			JSON.stringify({
				message: error.message,
				description: error.description,
				context: error.context,
				stack: error.stack,
				refused: refused.response,
			}) +
			capturedLogs()
				.map((line) => line.text)
				.join('\n');
		expect(text).not.toContain(secret.slice(6));
		expect(text).not.toContain(FULL_KEY.slice(9));
	}, 60_000);
});
