/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- throwaway test values, not secrets */
/**
 * The credential's "Test" as n8n runs it: SvcApi has no declarative `test`, so n8n calls the Svc
 * node's `methods.credentialTest` named by its `testedBy` (harness/engine/credential-test.ts
 * follows n8n's CredentialsTester). Every failure says what to fix, and never shows the key.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { SvcApi } from '../../credentials/SvcApi.credentials';
import { Svc } from '../../nodes/Svc/Svc.node';
import { aiToolNodeType, runCredentialTest, shutdownEngine } from '../../harness/engine';
import type { NodeTypeMap } from '../../harness/engine';
import { FULL_KEY, requestsTo, useSandbox } from '../../harness/engine/svc';
import { SVC_NODE_TYPE } from '../../harness/project';

const sandbox = useSandbox();
afterAll(async () => await shutdownEngine());

const UNKNOWN_KEY = 'svc_live_ThisKeyWasNeverIssued0001';
/** The package's node types as n8n lists them for the credential: the node, then its tool copy. */
const NODE_TYPES: NodeTypeMap = {
	[SVC_NODE_TYPE]: new Svc(),
	[`${SVC_NODE_TYPE}Tool`]: aiToolNodeType(new Svc()),
};

/** Every message a test gave, to check afterwards that no key was in any. */
const messages: string[] = [];

async function test(
	data: ICredentialDataDecryptedObject,
	nodeTypes: NodeTypeMap = NODE_TYPES,
): Promise<INodeCredentialTestResult> {
	const result = await runCredentialTest(new SvcApi(), data, { nodeTypes });
	messages.push(result.message);
	return result;
}

/** A port on loopback that nothing listens on. */
async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise<void>((resolve, reject) =>
		server.close((error) => (error ? reject(error) : resolve())),
	);
	return port;
}

describe('which test n8n runs', () => {
	it("the credential has no declarative test: n8n runs the Svc node's credentialTest", async () => {
		const credentialType: ICredentialType = new SvcApi();
		expect(credentialType.test).toBeUndefined();
		expect(new Svc().description.credentials).toEqual([
			{ name: 'svcApi', required: true, testedBy: 'svcApiTest' },
		]);
		expect(Object.keys(new Svc().methods.credentialTest)).toEqual(['svcApiTest']);
		await expect(test({ apiKey: FULL_KEY, baseUrl: sandbox().url }, {})).resolves.toEqual({
			status: 'Error',
			message: 'No testing function found for this credential.',
		});
	});

	it("a declarative `test` would win over the node's (n8n's rule) and answer a wrong scheme with a bare code", async () => {
		const withDeclarativeTest: ICredentialType = Object.assign(new SvcApi(), {
			test: {
				request: { baseURL: '={{ $credentials.baseUrl }}', url: '/v1/me', method: 'GET' as const },
			},
		});
		const result = await runCredentialTest(
			withDeclarativeTest,
			{ apiKey: FULL_KEY, baseUrl: sandbox().url.replace(/^http:/, 'https:') },
			{ nodeTypes: NODE_TYPES },
		);
		messages.push(result.message);
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^(EPROTO|ERR_SSL_[A-Z_]+)$/) as unknown,
		});
	});

	it('the Svc Tool copy shares the credentials entry, and with it the test', async () => {
		const tool = NODE_TYPES[`${SVC_NODE_TYPE}Tool`];
		await expect(test({ apiKey: FULL_KEY, baseUrl: sandbox().url }, { tool })).resolves.toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
	});
});

describe('what the test says', () => {
	it('passes with a valid key: one GET /v1/me with the Bearer key; a trailing slash or /v1 in the Base URL is fine', async () => {
		await expect(test({ apiKey: FULL_KEY, baseUrl: `${sandbox().url}/` })).resolves.toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		await expect(
			test({ apiKey: ` ${FULL_KEY}\n`, baseUrl: `${sandbox().url}/v1` }),
		).resolves.toEqual({ status: 'OK', message: 'Connection successful!' });
		const requests = requestsTo(sandbox(), 'GET /v1/me');
		expect(
			requests.map((request) => [request.headers.authorization, request.headers.accept]),
		).toEqual([
			[`Bearer ${FULL_KEY}`, 'application/json'],
			[`Bearer ${FULL_KEY}`, 'application/json'],
		]);
	});

	it('refuses a malformed key before sending anything, without repeating it', async () => {
		const result = await test({ apiKey: 'svc_live_tooShort', baseUrl: sandbox().url });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^The API key in the Svc API credential is not in an accepted format\. Expected svc_live_ or svc_test_ followed by 16 or more letters and digits/,
		);
		expect(result.message).not.toContain('tooShort');
		expect(sandbox().state.requests.all()).toHaveLength(0);
	});

	it('refuses http to a host other than loopback before sending', async () => {
		const result = await test({ apiKey: FULL_KEY, baseUrl: 'http://api.example.com' });
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(/must start with https:\/\//) as unknown,
		});
	});

	it('an unknown key: invalid, revoked or mistyped, and where to get a new one; one request', async () => {
		const result = await test({ apiKey: UNKNOWN_KEY, baseUrl: sandbox().url });
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(
				/^The API key was rejected \(401\): it is invalid, revoked or mistyped\. Paste the full key again .*Settings > API keys/,
			) as unknown,
		});
		expect(requestsTo(sandbox(), 'GET /v1/me').map((request) => request.status)).toEqual([401]);
	});

	it('https:// for a server that speaks http: names the address, the code and the http:// fix', async () => {
		const address = sandbox().url.replace(/^http:/, 'https:');
		const { host } = new URL(address);
		const result = await test({ apiKey: FULL_KEY, baseUrl: address });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^Could not connect to https:\/\/127\.0\.0\.1:\d+ \((EPROTO|ERR_SSL_[A-Z_]+)\)\. /,
		);
		expect(result.message).toContain(
			`The server at ${host} did not answer in TLS: the credential's Base URL most likely says https:// for a server that speaks http`,
		);
		expect(result.message).toContain('change the Base URL to start with http://');
	});

	it('a port nothing listens on: names host and port, and says to check the port', async () => {
		const port = await closedPort();
		const result = await test({ apiKey: FULL_KEY, baseUrl: `http://127.0.0.1:${port}` });
		expect(result).toEqual({
			status: 'Error',
			message: `Could not connect to http://127.0.0.1:${port} (ECONNREFUSED). Nothing accepted the connection at 127.0.0.1:${port}: check the port in the credential's Base URL, and that the service runs there.`,
		});
	});

	it('a host name that does not resolve: names the host and says to check for a typo', async () => {
		const result = await test({ apiKey: FULL_KEY, baseUrl: 'https://svc.invalid' });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^Could not connect to https:\/\/svc\.invalid \((ENOTFOUND|EAI_AGAIN)\)\. The host name svc\.invalid does not resolve: check the credential's Base URL for a typo/,
		);
	});

	it('a Base URL with a path the service does not have: says the Base URL is not the API address', async () => {
		const result = await test({ apiKey: FULL_KEY, baseUrl: `${sandbox().url}/api` });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^The Base URL does not lead to the service API \(404\)\. GET \/v1\/me at http:\/\/127\.0\.0\.1:\d+\/api was not found\. Put the service's API address in the Base URL/,
		);
	});

	describe('an address that is not the service', () => {
		let server: Server;
		let url: string;
		const seen: Array<string | undefined> = [];
		beforeAll(async () => {
			server = createServer((request, response) => {
				seen.push(request.headers.authorization);
				if (request.url?.startsWith('/moved')) {
					response.writeHead(301, { Location: `${url}/elsewhere/v1/me` }).end();
				} else {
					response
						.writeHead(200, { 'Content-Type': 'text/html' })
						.end('<html><body>Welcome</body></html>');
				}
			});
			await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
			url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		});
		afterAll(async () => await new Promise<void>((resolve) => server.close(() => resolve())));
		beforeEach(() => {
			seen.length = 0;
		});

		it('a redirect is not followed (it would take the key along) and is named as such', async () => {
			const result = await test({ apiKey: FULL_KEY, baseUrl: `${url}/moved` });
			expect(result.status).toBe('Error');
			expect(result.message).toMatch(
				/^The service answered with a redirect \(301\), which the node does not follow\. .*Put the service's own API address in the Base URL/,
			);
			expect(seen).toHaveLength(1);
		});

		it('a web page answering 200 is not a passed test', async () => {
			const result = await test({ apiKey: FULL_KEY, baseUrl: url });
			expect(result).toEqual({
				status: 'Error',
				message: `${url} answered GET /v1/me with something other than the service's JSON. Check that the Base URL in the Svc API credential points at the service API, not at a website or proxy page.`,
			});
		});
	});

	it('no message contains a key', () => {
		expect(messages.length).toBeGreaterThan(10);
		for (const message of messages) {
			expect(message).not.toContain(FULL_KEY);
			expect(message).not.toContain('ThisKeyWasNeverIssued');
			expect(message).not.toContain('tooShort');
			expect(message).not.toMatch(/Bearer /);
		}
	});
});
