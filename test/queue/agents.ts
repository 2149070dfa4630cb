/**
 * The Svc node as an AI tool in n8n's queue mode: n8n's MCP Server Trigger called by the official
 * MCP client at a webhook processor, and an AI Agent (scripted model) whose workflow a worker runs.
 * queue-mode.test.ts runs these on its topology before its kills, so that the suite starts one
 * topology fewer per n8n runtime; each figure goes into that file's figures.
 */
import type { IDataObject } from 'n8n-workflow';

import { handOverFoundLead, scriptedModelCredential } from '../../harness/agent-example';
import { FULL_KEY } from '../../harness/environment';
import type { McpConnection } from '../../harness/mcp-client';
import { connectMcp, resultText, toolFailure } from '../../harness/mcp-client';
import type { CredentialRef, WorkflowRecord } from '../../harness/n8n/api';
import { activate, importCredential, importWorkflow } from '../../harness/n8n/api';
import { listExecutions } from '../../harness/n8n/executions';
import type { RuntimeVersion } from '../../harness/n8n-runtime/install';
import type { QueueEnvironment } from '../../harness/queue-environment';
import type { ScriptedModel } from '../../harness/scripted-model';
import { answer, callTool, lastToolResult, startScriptedModel } from '../../harness/scripted-model';
import {
	AGENT,
	agentWorkflow,
	MCP_SERVER,
	mcpServerWorkflow,
	publishMcpServer,
	REFUSAL,
	SVC_TOOLS,
	svcTool,
	withTools,
} from '../../harness/svc-tools';
import { until } from '../../harness/wait';
import { touchCampaign, upsertLead } from '../../sandbox/operations';

const MCP_TOOLS = ['Get Lead', 'Save Lead', 'Dispatch Campaign'];
/** Where an execution ran, as whereRan names it: one of the topology's workers. */
const AT_A_WORKER: unknown = expect.stringMatching(/^worker-\d+$/);

/** The describe block, inside queue-mode.test.ts's for `version`; `running` gives its topology and figures once started. */
export function describeAgentsInQueue(
	version: RuntimeVersion,
	running: () => { queue: QueueEnvironment; figures: IDataObject },
): void {
	describe('Svc tools for MCP clients and AI agents', () => {
		let queue: QueueEnvironment;
		let figures: IDataObject;
		let model: ScriptedModel;
		let modelCredential: CredentialRef;
		const routes = () =>
			queue.sandbox.state.requests
				.all()
				.filter((request) => request.route !== null)
				.map((request) => request.route);
		/** Which process ran each of the workflow's stored executions: a worker's name, or 'not a worker'. */
		async function whereRan(workflow: WorkflowRecord): Promise<string[]> {
			const executions = await listExecutions(queue.topology.main, workflow.id);
			return await Promise.all(
				executions.map(
					async (execution) =>
						(await queue.topology.workerThatRan(execution.id))?.name ?? 'not a worker',
				),
			);
		}

		beforeAll(async () => {
			({ queue, figures } = running());
			model = await startScriptedModel();
			modelCredential = await importCredential(
				queue.topology.main,
				scriptedModelCredential(model.url),
			);
		});
		afterAll(async () => {
			await model?.close();
		});

		describe('MCP Server Trigger at a webhook processor', () => {
			const path = `svc-queue-mcp-${version}`;
			let workflow: WorkflowRecord;
			let mcp: McpConnection;
			const urlAt = (base: string) => `${base}/mcp/${path}`;

			beforeAll(async () => {
				const tools = MCP_TOOLS.map((name) => svcTool(name, SVC_TOOLS[name], queue.credential));
				workflow = await importWorkflow(
					queue.topology.main,
					withTools(mcpServerWorkflow(`queue mcp ${version}`, path), MCP_SERVER, tools),
				);
				await publishMcpServer(queue.topology.main, workflow, version);
				mcp = await connectMcp(urlAt(queue.topology.webhookProcessors[0].baseUrl), {
					ca: queue.tls.caPem,
				});
			});
			afterAll(async () => {
				await mcp?.close();
			});

			it('lists the tools, reads and upserts: the sandbox gets exactly those requests', async () => {
				queue.sandbox.state.requests.clear();
				const tools = await mcp.listTools();
				expect(tools.map((tool) => tool.name).sort()).toEqual([
					'Dispatch_Campaign',
					'Get_Lead',
					'Save_Lead',
				]);
				const read = await mcp.callTool('Get_Lead', { leadId: 'lead_0001' });
				const saved = await mcp.callTool('Save_Lead', {
					email: 'queue.mcp@example.com',
					firstName: 'Queue',
				});
				for (const result of [read, saved]) expect(result.isError).not.toBe(true);
				expect(resultText(read)).toContain('lead_0001');
				expect(resultText(saved)).toContain('queue.mcp@example.com');
				expect(routes()).toEqual(['GET /v1/leads/{lead_id}', 'POST /v1/leads']);
				for (const request of queue.sandbox.state.requests.all())
					if (request.route !== null)
						expect(request.headers.authorization).toBe(`Bearer ${FULL_KEY}`);
				const ranOn = await whereRan(workflow);
				figures.mcpToolCallsRanOn = ranOn;
				// 2.41 relays each MCP tool call to a worker; 1.123 runs some in the webhook processor.
				if (version === 'v2') expect(ranOn).toEqual([AT_A_WORKER, AT_A_WORKER]);
			});

			it('a 404 and a refused dispatch come back as error results (isError) with cause and fix; nothing is sent', async () => {
				touchCampaign(queue.sandbox.state, 'cmp_0002', { status: 'approved' });
				queue.sandbox.state.requests.clear();
				const missing = await mcp.callTool('Get_Lead', { leadId: 'lead_9999' });
				const refused = await mcp.callTool('Dispatch_Campaign', {
					campaignId: 'cmp_0002',
					confirm: true,
				});
				expect(missing.isError).toBe(true);
				expect(resultText(missing)).toMatch(/The resource was not found \(404\)/);
				expect(resultText(missing)).toMatch(/check the ID/);
				expect(refused.isError).toBe(true);
				expect(toolFailure(refused).message).toMatch(REFUSAL);
				expect(toolFailure(refused).message).toMatch(
					/\n\nDetails: .*switches on 'Allow Use by AI'\.$/,
				);
				expect(routes()).toEqual(['GET /v1/leads/{lead_id}']);
				for (const result of [missing, refused]) expect(resultText(result)).not.toContain(FULL_KEY);
			});

			it(
				version === 'v2'
					? 'a session opened at one webhook processor is answered at another (n8n 2.41 keeps MCP sessions for every process)'
					: 'a session opened at one webhook processor is refused at another (n8n 1.123 keeps MCP sessions per process: route a client to one processor)',
				async () => {
					const other = await connectMcp(urlAt(queue.topology.webhookProcessors[1].baseUrl), {
						ca: queue.tls.caPem,
					});
					try {
						// A session of its own at the second processor works like the first.
						const read = await other.callTool('Get_Lead', { leadId: 'lead_0001' });
						expect(read.isError).not.toBe(true);
						// The first processor's session id, sent to the second processor.
						const crossed = await queue.topology.main.fetch(
							urlAt(queue.topology.webhookProcessors[1].baseUrl),
							{
								method: 'POST',
								headers: {
									'content-type': 'application/json',
									accept: 'application/json, text/event-stream',
									'mcp-session-id': mcp.sessionId ?? '',
									'mcp-protocol-version': '2025-06-18',
								},
								body: JSON.stringify({
									jsonrpc: '2.0',
									id: 99,
									method: 'tools/call',
									params: { name: 'Get_Lead', arguments: { leadId: 'lead_0001' } },
								}),
								timeoutMs: 30_000,
							},
						);
						const body = JSON.stringify(crossed.body);
						figures.sessionAtOtherProcessor = { status: crossed.status, body: body.slice(0, 200) };
						if (version === 'v2') {
							expect(crossed.status).toBe(200);
							expect(body).toContain('lead_0001');
						} else {
							expect(crossed.status).toBe(400);
							expect(body).toContain('Server not initialized');
						}
					} finally {
						await other.close();
					}
				},
			);
		});

		describe('AI Agent on a worker', () => {
			const path = `svc-queue-agent-${version}`;
			let workflow: WorkflowRecord;

			beforeAll(async () => {
				const base = agentWorkflow({
					name: `queue agent ${version}`,
					path,
					version,
					modelId: model.modelId,
					modelCredential,
				});
				const tools = ['Find Lead', 'Hand To Assistant', 'Dispatch Campaign'].map((name) =>
					svcTool(name, SVC_TOOLS[name], queue.credential),
				);
				workflow = await importWorkflow(queue.topology.main, withTools(base, AGENT, tools));
				await activate(queue.topology.main, workflow.id);
			});

			it('finds a lead and hands it over, a dispatch is refused, and the answer comes back from the worker', async () => {
				const { lead } = upsertLead(queue.sandbox.state, {
					email: 'queue.agent@example.com',
					custom_fields: { consent: { status: 'granted', channel: 'email' } },
				});
				touchCampaign(queue.sandbox.state, 'cmp_0002', { status: 'approved' });
				queue.sandbox.state.requests.clear();
				model.clear();
				model.play([
					callTool('Find_Lead', { email: 'queue.agent@example.com' }),
					handOverFoundLead('Asked to by the user'),
					callTool('Dispatch_Campaign', { campaignId: 'cmp_0002', confirm: true }),
					answer((request) => `Handed over; dispatch said: ${lastToolResult(request)}`),
				]);
				const response = await queue.topology.main.fetch<{ output?: string }>(
					`${queue.topology.webhookProcessors[0].webhookBaseUrl}/${path}`,
					{
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ prompt: 'Hand queue.agent@example.com to the assistant.' }),
						timeoutMs: 120_000,
					},
				);
				expect(response.status).toBe(200);
				expect(model.chats().map((chat) => chat.status)).toEqual([200, 200, 200, 200]);
				expect(routes()).toEqual(['GET /v1/leads', 'POST /v1/leads/{lead_id}/assistant-takeover']);
				expect(
					queue.sandbox.state.requests.all().find((request) => request.route?.endsWith('takeover'))
						?.path,
				).toBe(`/v1/leads/${lead.id}/assistant-takeover`);
				const output = response.body.output ?? '';
				expect(output.startsWith('Handed over; dispatch said: ')).toBe(true);
				expect(output).toMatch(/not allowed for AI use/);
				await until(
					'the agent execution is stored',
					async () => (await listExecutions(queue.topology.main, workflow.id)).length === 1,
				);
				const ranOn = await whereRan(workflow);
				figures.agentRanOn = ranOn;
				expect(ranOn).toEqual([AT_A_WORKER]);
			});
		});
	});
}
