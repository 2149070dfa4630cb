/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- throwaway test values, not secrets */
/**
 * The Svc node as an AI tool in a real n8n: an AI Agent driven by a scripted chat model, and
 * n8n's MCP Server Trigger called by the official MCP client. One n8n per major.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';

import {
	AGENT_EXAMPLE_AGENT,
	AGENT_EXAMPLE_FILE,
	handOverFoundLead,
	qualifyLeadScript,
	SCRIPTED_MODEL_CREDENTIAL_ID,
	scriptedModelCredential,
} from '../../harness/agent-example';
import type { Environment } from '../../harness/environment';
import { FULL_KEY, startEnvironment } from '../../harness/environment';
import { loadExample, withCredential } from '../../harness/example-workflows';
import { nodeOutput, runsOfLead } from '../../harness/n8n/node-results';
import { runtimeVersions } from '../../harness/runtime-versions';
import type { McpConnection } from '../../harness/mcp-client';
import { connectMcp, resultText, toolFailure } from '../../harness/mcp-client';
import type { CredentialRef, WorkflowNodeInput, WorkflowRecord } from '../../harness/n8n/api';
import { activate, deactivate, importCredential, importWorkflow } from '../../harness/n8n/api';
import type { ExecutionRecord } from '../../harness/n8n/executions';
import { listExecutions, settledExecutionsWithData } from '../../harness/n8n/executions';
import type {
	ChatRequest,
	OfferedTool,
	RecordedChat,
	ScriptedModel,
	ToolResult,
	Turn,
} from '../../harness/scripted-model';
import {
	answer,
	callTool,
	lastToolResult,
	startScriptedModel,
	toolResults,
} from '../../harness/scripted-model';
import {
	AGENT,
	agentWorkflow,
	byId,
	fromAI,
	MCP_SERVER,
	mcpServerWorkflow,
	publishMcpServer,
	REFUSAL,
	REFUSAL_FIX,
	SVC_TOOLS,
	svcTool,
	withTools,
} from '../../harness/svc-tools';
import { until } from '../../harness/wait';
import { DEMO_KEYS } from '../../sandbox';
import { touchCampaign, upsertLead } from '../../sandbox/operations';

jest.setTimeout(120_000);

const READ_ONLY_KEY = DEMO_KEYS[1].key;
const SECRETS = [FULL_KEY, READ_ONLY_KEY];
const MCP_TOKEN = 'mcp-e2e-bearer-token-0123456789';
const TAKEOVER_ROUTE = 'POST /v1/leads/{lead_id}/assistant-takeover';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A JavaScript stack frame, as a thrown error's stack prints it. */
const STACK_FRAME = /\n\s+at .+\(?.+:\d+:\d+\)?/;

function offered(request: ChatRequest, name: string): OfferedTool['function'] {
	const tool = request.tools?.find((candidate) => candidate.function.name === name);
	if (!tool)
		throw new Error(
			`the model was not offered ${name}; it got ${(request.tools ?? []).map((t) => t.function.name).join(', ')}`,
		);
	return tool.function;
}

/** A tool result that is the node's error item ({ error, description }: as a tool the node answers a failure instead of throwing), as one text. */
function errorText(result: ToolResult): string {
	const items = JSON.parse(result.content) as Array<{ error?: string; description?: string }>;
	expect(items).toEqual([
		{ error: expect.any(String) as unknown, description: expect.any(String) as unknown },
	]);
	return `${items[0].error ?? ''} ${items[0].description ?? ''}`;
}

/**
 * The cause and the fix of a failure the tool threw, from an MCP error result: n8n's MCP Server
 * Trigger names the error (2.41: the class; 1.123: `Error`), and the message holds the cause, then
 * the fix after "Details:".
 */
function mcpFailure(result: CallToolResult, version: string): { cause: string; fix: string } {
	expect(result.isError).toBe(true);
	const { errorName, message } = toolFailure(result);
	expect(errorName).toBe(version === 'v2' ? 'NodeOperationError' : 'Error');
	expect(message).toMatch(/^[^\n]+\n\nDetails: [^\n]+$/);
	const [cause, fix] = message.split('\n\nDetails: ');
	return { cause, fix };
}

/** What a caller (model or MCP client) may be shown of a failure: short, no stack, no key. */
function expectCleanError(text: string): void {
	expect(text.length).toBeLessThan(700);
	expect(text).not.toMatch(STACK_FRAME);
	for (const secret of SECRETS) expect(text).not.toContain(secret);
}

describe.each(runtimeVersions('SVC_E2E_N8N'))(
	'n8n %s: Svc tools for AI agents and MCP clients',
	(version) => {
		let env: Environment;
		let model: ScriptedModel;
		let modelCredential: CredentialRef;
		let readOnly: CredentialRef;

		beforeAll(async () => {
			model = await startScriptedModel();
			env = await startEnvironment({ version, shared: true });
			// 1.x ignores a given id: the example's reference is re-pointed (withCredential) there.
			modelCredential = await importCredential(
				env.n8n,
				scriptedModelCredential(
					model.url,
					version === 'v2' ? SCRIPTED_MODEL_CREDENTIAL_ID : undefined,
				),
			);
			readOnly = await importCredential(env.n8n, {
				name: 'Svc read only',
				type: 'svcApi',
				data: env.credentialData({ apiKey: READ_ONLY_KEY, baseUrl: env.sandbox.url }),
			});
		}, 15 * 60_000);
		afterAll(async () => {
			await env?.stop();
			await model?.close();
		});
		afterEach(() => env.sandbox.state.faults.clear());

		/** A Svc tool with the full-scope sandbox credential unless another is given. */
		const tool = (
			name: string,
			parameters: INodeParameters,
			credential: CredentialRef = env.credential,
		): WorkflowNodeInput => svcTool(name, parameters, credential);

		const requests = () =>
			env.sandbox.state.requests.all().filter((request) => request.route !== null);
		const executionText = async (workflowId: string): Promise<string> =>
			JSON.stringify(await listExecutions(env.n8n, workflowId, { includeData: true }));

		describe('AI Agent with Svc tools, driven by the scripted model', () => {
			const path = `svc-agent-${version}`;
			let workflow: WorkflowRecord;

			beforeAll(async () => {
				const base = agentWorkflow({
					name: `agent e2e ${version}`,
					path,
					version,
					modelId: model.modelId,
					modelCredential,
				});
				// n8n's default settings on every tool (no "On Error: Continue"): the tool itself answers a failure as an item.
				const tools = [
					tool('Find Lead', SVC_TOOLS['Find Lead']),
					tool('Get Lead', SVC_TOOLS['Get Lead']),
					tool('Save Lead', SVC_TOOLS['Save Lead']),
					tool('Hand To Assistant', SVC_TOOLS['Hand To Assistant']),
					tool('Hand Over With Read Key', SVC_TOOLS['Hand To Assistant'], readOnly),
					tool('Dispatch Campaign', SVC_TOOLS['Dispatch Campaign']),
				];
				workflow = await importWorkflow(env.n8n, withTools(base, AGENT, tools));
				await activate(env.n8n, workflow.id);
			});
			afterAll(async () => {
				if (workflow) await deactivate(env.n8n, workflow.id);
			});

			/** Plays `turns` for one prompt sent to the agent's webhook; returns its answer and what the model saw. */
			async function ask(
				prompt: string,
				turns: Turn[],
			): Promise<{ status: number; output: unknown; body: unknown; chats: RecordedChat[] }> {
				model.play(turns);
				model.clear();
				env.sandbox.state.requests.clear();
				const response = await env.n8n.fetch<{ output?: unknown }>(
					`${env.n8n.webhookBaseUrl}/${path}`,
					{
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ prompt }),
						timeoutMs: 60_000,
					},
				);
				const body = response.body;
				return {
					status: response.status,
					body,
					output: typeof body === 'object' && body !== null ? body.output : undefined,
					chats: model.chats(),
				};
			}

			it('finds a lead by email, hands it to the assistant with the id it got back, and answers quoting the result', async () => {
				const { lead } = upsertLead(env.sandbox.state, {
					email: 'agent.lead@example.com',
					first_name: 'Agent',
					custom_fields: { consent: { status: 'granted', channel: 'email' } },
				});
				const result = await ask(
					'Find the lead agent.lead@example.com and hand it to the assistant.',
					[
						callTool('Find_Lead', { email: 'agent.lead@example.com' }),
						handOverFoundLead('Asked to by the user'),
						answer((request) => `Done: ${lastToolResult(request)}`),
					],
				);
				expect(result.status).toBe(200);
				expect(result.chats.map((chat) => chat.status)).toEqual([200, 200, 200]);

				const first = result.chats[0].request;
				expect(first.stream).not.toBe(true);
				expect((first.tools ?? []).map((tool) => tool.function.name).sort()).toEqual([
					'Dispatch_Campaign',
					'Find_Lead',
					'Get_Lead',
					'Hand_Over_With_Read_Key',
					'Hand_To_Assistant',
					'Save_Lead',
				]);
				for (const tool of first.tools ?? [])
					expect(tool.function.description?.length).toBeGreaterThan(10);
				const find = offered(first, 'Find_Lead');
				expect(find.description).toBe(SVC_TOOLS['Find Lead'].toolDescription);
				expect(find.parameters).toMatchObject({
					type: 'object',
					properties: { email: { type: 'string', description: 'The email address of the lead' } },
					required: ['email'],
				});
				const handOver = offered(first, 'Hand_To_Assistant');
				expect(handOver.description).toBe(SVC_TOOLS['Hand To Assistant'].toolDescription);
				expect(handOver.parameters).toMatchObject({
					type: 'object',
					properties: { leadId: { type: 'string' }, note: { type: 'string' } },
				});
				expect([...((handOver.parameters?.required as string[] | undefined) ?? [])].sort()).toEqual(
					['leadId', 'note'],
				);

				const [lookup, takeover] = toolResults(result.chats[2].request);
				expect(lookup.name).toBe('Find_Lead');
				expect(lookup.content).toContain(lead.id);
				expect(takeover.name).toBe('Hand_To_Assistant');
				expect(takeover.arguments).toMatchObject({ leadId: lead.id });
				expect(takeover.content).toContain('assistant_active');

				const sent = requests();
				expect(sent.map((request) => request.route)).toEqual(['GET /v1/leads', TAKEOVER_ROUTE]);
				expect(sent[0].query).toMatchObject({ email: 'agent.lead@example.com' });
				expect(sent[1].path).toBe(`/v1/leads/${lead.id}/assistant-takeover`);
				expect(sent[1].body).toEqual({ note: 'Asked to by the user' });
				expect(sent[1].headers['idempotency-key']).toMatch(UUID);
				for (const request of sent)
					expect(request.headers.authorization).toBe(`Bearer ${FULL_KEY}`);

				expect(result.output).toEqual(expect.stringContaining('assistant_active'));
				expect(result.output).toEqual(expect.stringContaining(lead.id));
			});

			/** The agent's run: answered, finished as a success, the model's final answer returned; the key in neither the model's requests nor the execution. */
			async function expectRunCompleted(
				result: Awaited<ReturnType<typeof ask>>,
				turns: number,
			): Promise<void> {
				expect(result.status).toBe(200);
				expect(result.chats.map((chat) => chat.status)).toEqual(new Array<number>(turns).fill(200));
				const [last] = await listExecutions(env.n8n, workflow.id, { includeData: true });
				expect(last.status).toBe('success');
				const everything = JSON.stringify(model.chats()) + (await executionText(workflow.id));
				for (const secret of SECRETS) expect(everything).not.toContain(secret);
			}

			it("with n8n's defaults, a missing id (404) and a key without the scope (403) reach the model as short text naming cause and fix, and the run goes on to the answer", async () => {
				const result = await ask('Get lead_9999, then hand lead_0001 over.', [
					callTool('Get_Lead', { leadId: 'lead_9999' }),
					callTool('Hand_Over_With_Read_Key', { leadId: 'lead_0001', note: 'try' }),
					answer(
						(request) =>
							`Could not: ${toolResults(request)
								.map((tool) => tool.content)
								.join(' | ')}`,
					),
				]);
				await expectRunCompleted(result, 3);
				const [missing, forbidden] = toolResults(result.chats[2].request).map(errorText);
				expect(missing).toBe(
					'The resource was not found (404) GET /v1/leads/{lead_id}: check the ID. The service said: No lead with id "lead_9999"',
				);
				expectCleanError(missing);
				expect(forbidden).toMatch(
					/^The API key lacks the scope "conversations:write" that this operation needs \(403\) /,
				);
				expect(forbidden).toMatch(
					/In the service's dashboard \(Settings > API keys\) create or edit a key with that scope and use it in the Svc API credential\./,
				);
				expectCleanError(forbidden);
				expect(result.output).toEqual(
					expect.stringMatching(
						/^Could not: .*not found \(404\).*check the ID.* \| .*conversations:write/,
					),
				);
				expect(requests().map((request) => [request.route, request.status])).toEqual([
					['GET /v1/leads/{lead_id}', 404],
					[TAKEOVER_ROUTE, 403],
				]);
			});

			it("with n8n's defaults, a 422 and a 429 that outlasts the retries reach the model explained", async () => {
				env.sandbox.state.faults.set([
					{ route: 'POST /v1/leads', errorRate: 1, errorStatuses: [422] },
					{ route: 'GET /v1/leads/{lead_id}', rateLimitedRate: 1, retryAfterSeconds: 0 },
				]);
				const result = await ask('Save a lead, then read lead_0001.', [
					callTool('Save_Lead', { email: 'invalid.lead@example.com', firstName: 'Invalid' }),
					callTool('Get_Lead', { leadId: 'lead_0001' }),
					answer('Both failed.'),
				]);
				await expectRunCompleted(result, 3);
				expect(result.output).toBe('Both failed.');
				const [unprocessable, limited] = toolResults(result.chats[2].request).map(errorText);
				expect(unprocessable).toMatch(/could not accept the data \(422\)/);
				expect(unprocessable).toMatch(/Fix the value/);
				expectCleanError(unprocessable);
				expect(limited).toMatch(/Rate limit hit: the service kept answering 429 after 10 attempts/);
				expect(limited).toMatch(/run the workflow again later/);
				expectCleanError(limited);
				expect(
					requests().filter((request) => request.route === 'GET /v1/leads/{lead_id}'),
				).toHaveLength(10);
			});

			it('a dispatch the model confirms is refused with the cause and what a person must do; nothing reaches the service and the run goes on', async () => {
				touchCampaign(env.sandbox.state, 'cmp_0002', { status: 'approved' });
				const dispatches = env.sandbox.state.stats.snapshot().dispatches;
				const result = await ask('Send campaign cmp_0002 now.', [
					callTool('Dispatch_Campaign', { campaignId: 'cmp_0002', confirm: true }),
					answer((request) => lastToolResult(request)),
				]);
				await expectRunCompleted(result, 2);
				const refusal = errorText(toolResults(result.chats[1].request)[0]);
				expect(refusal).toMatch(REFUSAL);
				expect(refusal).toMatch(REFUSAL_FIX);
				expectCleanError(refusal);
				expect(requests()).toEqual([]);
				expect(env.sandbox.state.stats.snapshot().dispatches).toBe(dispatches);
			});
		});

		describe('AI Agent streaming its answer through the webhook', () => {
			const path = `svc-agent-stream-${version}`;
			let workflow: WorkflowRecord;

			beforeAll(async () => {
				const base = agentWorkflow({
					name: `agent streaming e2e ${version}`,
					path,
					version,
					modelId: model.modelId,
					modelCredential,
					respond: 'streaming',
				});
				const tools = ['Find Lead', 'Hand To Assistant', 'Dispatch Campaign'].map((name) =>
					tool(name, SVC_TOOLS[name]),
				);
				workflow = await importWorkflow(env.n8n, withTools(base, AGENT, tools));
				await activate(env.n8n, workflow.id);
			});
			afterAll(async () => {
				if (workflow) await deactivate(env.n8n, workflow.id);
			});

			it('streams its answer while the model, streaming too, calls Svc tools; the refused dispatch reaches it and nothing is sent', async () => {
				const { lead } = upsertLead(env.sandbox.state, {
					email: 'stream.lead@example.com',
					custom_fields: { consent: { status: 'granted', channel: 'email' } },
				});
				touchCampaign(env.sandbox.state, 'cmp_0002', { status: 'approved' });
				const dispatches = env.sandbox.state.stats.snapshot().dispatches;
				env.sandbox.state.requests.clear();
				model.clear();
				model.play([
					callTool('Find_Lead', { email: 'stream.lead@example.com' }),
					handOverFoundLead('Asked to by the user'),
					callTool('Dispatch_Campaign', { campaignId: 'cmp_0002', confirm: true }),
					answer((request) => `Handed over. The dispatch answered: ${lastToolResult(request)}`),
				]);
				const response = await env.n8n.fetch<string>(`${env.n8n.webhookBaseUrl}/${path}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ prompt: 'Hand stream.lead@example.com to the assistant.' }),
					timeoutMs: 60_000,
				});
				expect(response.status).toBe(200);
				// n8n streams one JSON object per line: begin, the items of text, end.
				const events = String(response.body)
					.split('\n')
					.filter((line) => line.trim() !== '')
					.map((line) => JSON.parse(line) as { type: string; content?: string });
				const items = events.filter((event) => event.type === 'item');
				expect(items.length).toBeGreaterThan(3);
				const streamed = items.map((event) => event.content ?? '').join('');
				expect(streamed.startsWith('Handed over. The dispatch answered: ')).toBe(true);
				expect(streamed).toMatch(/not allowed for AI use in this tool/);
				expect(model.chats().map((chat) => [chat.status, chat.request.stream])).toEqual([
					[200, true],
					[200, true],
					[200, true],
					[200, true],
				]);
				expect(requests().map((request) => request.route)).toEqual([
					'GET /v1/leads',
					TAKEOVER_ROUTE,
				]);
				expect(requests()[1].path).toBe(`/v1/leads/${lead.id}/assistant-takeover`);
				expect(env.sandbox.state.stats.snapshot().dispatches).toBe(dispatches);
			});
		});

		describe('MCP Server Trigger with Svc tools, called by the official MCP client', () => {
			const path = `svc-mcp-${version}`;
			let workflow: WorkflowRecord;
			let mcp: McpConnection;
			const url = () => `${env.n8n.baseUrl}/mcp/${path}`;

			beforeAll(async () => {
				const bearer = await importCredential(env.n8n, {
					name: 'MCP bearer',
					type: 'httpBearerAuth',
					data: { token: MCP_TOKEN },
				});
				const base = mcpServerWorkflow(`mcp e2e ${version}`, path, bearer);
				const tools = ['Get Lead', 'Save Lead', 'Hand To Assistant'].map((name) =>
					tool(name, SVC_TOOLS[name]),
				);
				workflow = await importWorkflow(env.n8n, withTools(base, MCP_SERVER, tools));
				await publishMcpServer(env.n8n, workflow, version);
				mcp = await connectMcp(url(), { ca: env.tls.caPem, token: MCP_TOKEN });
			});
			afterAll(async () => {
				await mcp?.close();
			});

			it('lists the tools with descriptions and input schemas holding the $fromAI keys', async () => {
				const tools = await mcp.listTools();
				const named = (name: string): Tool => {
					const tool = tools.find((candidate) => candidate.name === name);
					if (!tool)
						throw new Error(
							`no tool ${name} in ${tools.map((candidate) => candidate.name).join(', ')}`,
						);
					return tool;
				};
				expect(tools.map((tool) => tool.name).sort()).toEqual([
					'Get_Lead',
					'Hand_To_Assistant',
					'Save_Lead',
				]);
				for (const tool of tools) expect(tool.description?.length).toBeGreaterThan(10);
				expect(named('Hand_To_Assistant').description).toBe(
					SVC_TOOLS['Hand To Assistant'].toolDescription,
				);
				expect(named('Get_Lead').description).toBe(SVC_TOOLS['Get Lead'].toolDescription);
				expect(named('Get_Lead').inputSchema).toMatchObject({
					type: 'object',
					properties: { leadId: { type: 'string' } },
					required: ['leadId'],
				});
				expect(named('Save_Lead').inputSchema).toMatchObject({
					type: 'object',
					properties: { email: { type: 'string' }, firstName: { type: 'string' } },
				});
				expect(named('Hand_To_Assistant').inputSchema).toMatchObject({
					type: 'object',
					properties: { leadId: { type: 'string' }, note: { type: 'string' } },
				});
			});

			it('reads, upserts and hands over: the sandbox gets exactly those requests and the results come back', async () => {
				env.sandbox.state.requests.clear();
				const read = await mcp.callTool('Get_Lead', { leadId: 'lead_0001' });
				const saved = await mcp.callTool('Save_Lead', {
					email: 'mcp.lead@example.com',
					firstName: 'Mcp',
				});
				const lead = env.sandbox.state.store.findLead('email', 'mcp.lead@example.com');
				expect(lead).toBeDefined();
				const handed = await mcp.callTool('Hand_To_Assistant', {
					leadId: lead?.id ?? '',
					note: 'From MCP',
				});
				for (const result of [read, saved, handed]) expect(result.isError).not.toBe(true);
				expect(resultText(read)).toContain('lead_0001');
				expect(resultText(saved)).toContain('mcp.lead@example.com');
				expect(resultText(saved)).toContain('created');
				expect(resultText(handed)).toContain('assistant_active');
				const sent = requests();
				expect(sent.map((request) => request.route)).toEqual([
					'GET /v1/leads/{lead_id}',
					'POST /v1/leads',
					TAKEOVER_ROUTE,
				]);
				expect(sent[1].body).toMatchObject({ email: 'mcp.lead@example.com', first_name: 'Mcp' });
				expect(sent[1].headers['idempotency-key']).toMatch(UUID);
				expect(sent[2].headers['idempotency-key']).toMatch(UUID);
				for (const request of sent)
					expect(request.headers.authorization).toBe(`Bearer ${FULL_KEY}`);
			});

			it('a missing argument and a wrong id end in an error result that says what to fix: no hang, no stack trace, no key', async () => {
				env.sandbox.state.requests.clear();
				const outcomes: Array<CallToolResult | Error> = [];
				for (const args of [{}, { leadId: 'lead_9999' }]) {
					outcomes.push(
						await mcp.callTool('Get_Lead', args).catch((error: unknown) => error as Error),
					);
				}
				const [missing, wrong] = outcomes.map((outcome) =>
					outcome instanceof Error ? outcome.message : resultText(outcome),
				);
				// n8n's own check of the tool's arguments, before the node runs: an MCP error result.
				expect(missing).toMatch(/leadId/);
				expectCleanError(missing);
				expect(outcomes[0]).toMatchObject({ isError: true });
				// The node throws a 404 to an MCP client: an error result, cause and fix.
				expect(mcpFailure(outcomes[1] as CallToolResult, version)).toEqual({
					cause: 'The resource was not found (404)',
					fix: 'GET /v1/leads/{lead_id}: check the ID. The service said: No lead with id "lead_9999"',
				});
				expectCleanError(wrong);
				expect(requests().map((request) => request.route)).toEqual(['GET /v1/leads/{lead_id}']);
				const everything = await executionText(workflow.id);
				for (const secret of SECRETS) expect(everything).not.toContain(secret);
			});

			it('refuses a client without the bearer token', async () => {
				const initialize = {
					jsonrpc: '2.0',
					id: 1,
					method: 'initialize',
					params: {
						protocolVersion: '2025-06-18',
						capabilities: {},
						clientInfo: { name: 'no-token', version: '1' },
					},
				};
				const raw = await env.n8n.fetch(url(), {
					method: 'POST',
					headers: {
						'content-type': 'application/json',
						accept: 'application/json, text/event-stream',
					},
					body: JSON.stringify(initialize),
				});
				const wrong = await connectMcp(url(), {
					ca: env.tls.caPem,
					token: 'wrong-token',
					timeoutMs: 10_000,
				}).then(
					() => 'connected',
					(error: unknown) => String(error),
				);
				// Both majors answer a missing or wrong token 403 with this text.
				expect(raw).toMatchObject({ status: 403, body: 'Authorization data is wrong!' });
				expect(wrong).toMatch(/Authorization data is wrong!/);
			});
		});

		describe('the example workflow: an AI agent qualifies a new lead and hands it to the assistant', () => {
			it('a new lead with consent is looked up and handed over; one without is left alone', async () => {
				const example = withCredential(
					loadExample(AGENT_EXAMPLE_FILE, env.credential),
					modelCredential,
					SCRIPTED_MODEL_CREDENTIAL_ID,
				);
				const workflow = await importWorkflow(env.n8n, example);
				model.play(qualifyLeadScript());
				await activate(env.n8n, workflow.id);
				try {
					const takeovers = env.sandbox.state.stats.snapshot().takeovers;
					const { lead: eager } = upsertLead(env.sandbox.state, {
						email: 'eager.example@example.com',
						first_name: 'Eager',
						custom_fields: { consent: { status: 'granted', channel: 'email' } },
					});
					// One lead after the other, as the model's script goes; each lead's run found by its lead.
					const ran = (runs: ExecutionRecord[], leadId: string): ExecutionRecord[] =>
						runsOfLead(runs, 'On Lead Created', leadId);
					await env.sandbox.state.waitForDeliveries();
					await settledExecutionsWithData(
						env.n8n,
						workflow.id,
						(runs) => ran(runs, eager.id).length > 0,
					);
					const { lead: quiet } = upsertLead(env.sandbox.state, {
						email: 'quiet.example@example.com',
						first_name: 'Quiet',
					});
					await env.sandbox.state.waitForDeliveries();
					const runs = await settledExecutionsWithData(
						env.n8n,
						workflow.id,
						(all) => ran(all, quiet.id).length > 0,
					);
					const agentOutput = (leadId: string): unknown[] =>
						ran(runs, leadId).map((run) => {
							expect(run.status).toBe('success');
							return nodeOutput(run, AGENT_EXAMPLE_AGENT)[0]?.json.output;
						});
					// Readable text, not the tool's JSON: consent is granted, so the assistant greeted the lead.
					expect(agentOutput(eager.id)).toEqual([
						`Handed lead ${eager.id} to the assistant, which greeted the lead.`,
					]);
					expect(agentOutput(quiet.id)).toEqual([
						`Left lead ${quiet.id} alone: its consent is not recorded.`,
					]);
					expect(env.sandbox.state.stats.snapshot().takeovers).toBe(takeovers + 1);
					const handed = requests().filter((request) => request.route === TAKEOVER_ROUTE);
					expect(handed.map((request) => request.path)).toEqual([
						`/v1/leads/${eager.id}/assistant-takeover`,
					]);
				} finally {
					await deactivate(env.n8n, workflow.id);
				}
			});
		});

		describe('safety: a model cannot dispatch campaigns or manage webhook subscriptions on its own', () => {
			const path = `svc-mcp-safety-${version}`;
			let mcp: McpConnection;

			beforeAll(async () => {
				const base = mcpServerWorkflow(`mcp safety e2e ${version}`, path);
				const campaignId = byId(fromAI('campaignId', 'The id of the campaign, e.g. cmp_0001'));
				const tools = [
					tool('Dispatch Campaign', SVC_TOOLS['Dispatch Campaign']),
					tool('Dispatch If Allowed', {
						resource: 'campaign',
						operation: 'dispatch',
						campaignId,
						confirmDispatch: true,
						leadIds: 'lead_0001',
						allowToolUse: "={{ $fromAI('allow', '', 'boolean') }}",
					}),
					tool('Subscribe', {
						resource: 'webhookSubscription',
						operation: 'create',
						url: fromAI('url', 'The https URL that receives the events'),
						events: ['lead.created'],
					}),
					tool('Unsubscribe', {
						resource: 'webhookSubscription',
						operation: 'delete',
						subscriptionId: fromAI('subscriptionId', 'The id of the subscription'),
					}),
					tool('Dispatch Approved', {
						resource: 'campaign',
						operation: 'dispatch',
						campaignId,
						confirmDispatch: true,
						allowToolUse: true,
						audience: 'wholeAudience',
					}),
				];
				const workflow = await importWorkflow(env.n8n, withTools(base, MCP_SERVER, tools));
				await publishMcpServer(env.n8n, workflow, version);
				mcp = await connectMcp(`${env.n8n.baseUrl}/mcp/${path}`, { ca: env.tls.caPem });
			});
			afterAll(async () => {
				await mcp?.close();
			});

			it("refuses a dispatch confirmed by the model, one whose allowToolUse is the model's, and a subscription to an outside URL, each as an error result: nothing reaches the service", async () => {
				touchCampaign(env.sandbox.state, 'cmp_0002', { status: 'approved' });
				const subscriptions = env.sandbox.state.store.subscriptions.size;
				const dispatches = env.sandbox.state.stats.snapshot().dispatches;
				env.sandbox.state.requests.clear();
				const calls: Array<[string, Record<string, unknown>]> = [
					['Dispatch_Campaign', { campaignId: 'cmp_0002', confirm: true }],
					['Dispatch_If_Allowed', { campaignId: 'cmp_0002', allow: true }],
					['Subscribe', { url: 'https://collector.attacker.example.net/hook' }],
					['Unsubscribe', { subscriptionId: 'sub_0001' }],
				];
				for (const [name, args] of calls) {
					const result = await mcp.callTool(name, args);
					// An error result: the refusal and what a person must do.
					expect({ name, isError: result.isError }).toEqual({ name, isError: true });
					const { cause, fix } = mcpFailure(result, version);
					expect(cause).toMatch(
						/is not allowed for AI use in this tool: a person must switch on 'Allow Use by AI' in the node; a model cannot$/,
					);
					expect(fix).toMatch(
						/Nothing was sent to the service\. To let the model .+, a person opens this tool node in the editor and switches on 'Allow Use by AI'\.$/,
					);
					if (name === 'Dispatch_Campaign') expect(cause).toMatch(REFUSAL);
					if (name === 'Dispatch_If_Allowed') expect(fix).toMatch(/holds an expression/);
					expectCleanError(resultText(result));
				}
				expect(requests()).toEqual([]);
				expect(env.sandbox.state.stats.snapshot().dispatches).toBe(dispatches);
				expect(env.sandbox.state.store.subscriptions.size).toBe(subscriptions);
			});

			it('with allowToolUse set to true by the person, the dispatch runs exactly once', async () => {
				touchCampaign(env.sandbox.state, 'cmp_0002', { status: 'approved' });
				const dispatches = env.sandbox.state.stats.snapshot().dispatches;
				env.sandbox.state.requests.clear();
				const result = await mcp.callTool('Dispatch_Approved', { campaignId: 'cmp_0002' });
				expect(result.isError).not.toBe(true);
				expect(resultText(result)).toContain('queued');
				await until(
					'the dispatch recorded',
					() => env.sandbox.state.stats.snapshot().dispatches > dispatches,
					{ timeoutMs: 5_000 },
				);
				expect(env.sandbox.state.stats.snapshot().dispatches).toBe(dispatches + 1);
				// The tool reads the campaign's status first: only an approved campaign is sent.
				expect(requests().map((request) => request.route)).toEqual([
					'GET /v1/campaigns/{campaign_id}',
					'POST /v1/campaigns/{campaign_id}/dispatch',
				]);
			});
		});
	},
);
