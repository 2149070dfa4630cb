/**
 * (t) What a model receives per call. Each read operation of the Svc tool, with the tool's
 * defaults, sits beside n8n's HTTP Request Tool making the same GET with the same credential, all
 * attached to one published MCP Server Trigger; the official MCP client calls each tool once and
 * counts the bytes of the text it gets back. The sandbox first gets 200 more leads and a thread of
 * 60 messages, so that a list answer without a bound shows.
 */
import { randomUUID } from 'node:crypto';

import type { INodeParameters } from 'n8n-workflow';

import type { Sandbox } from '../../../sandbox';
import { createSubscription, upsertLead } from '../../../sandbox/operations';
import { connectMcp, resultText } from '../../../harness/mcp-client';
import type { CredentialRef, WorkflowInput } from '../../../harness/n8n/api';
import { activate, importCredential, importWorkflow } from '../../../harness/n8n/api';
import { startN8n } from '../../../harness/n8n/process';
import type { N8nRuntime } from '../../../harness/n8n-runtime/install';
import { SVC_NODE_TYPE } from '../../../harness/project';

const EXTRA_LEADS = 200;
const LONG_THREAD_MESSAGES = 60;
const MCP_PATH = 'svc-bench-tools';

/** One read, as the Svc tool does it and as the HTTP Request Tool does it. */
interface ReadCall {
	label: string;
	svc: INodeParameters;
	/** The same request for the HTTP Request Tool, below the base URL. */
	path: string;
	list: boolean;
}

export interface ToolAnswer {
	label: string;
	list: boolean;
	svcBytes: number;
	httpBytes: number;
	/** Records in the Svc answer (1 for a single record). */
	svcRecords: number;
	httpRecords: number;
	svcError?: string;
	httpError?: string;
}

const byId = (value: string) => ({ __rl: true, mode: 'id', value });

function readCalls(longThreadId: string, subscriptionId: string): ReadCall[] {
	return [
		{
			label: 'Account: Get Current Identity',
			svc: { resource: 'account', operation: 'getMe' },
			path: '/v1/me',
			list: false,
		},
		{
			label: 'Lead: Get',
			svc: { resource: 'lead', operation: 'get', leadId: byId('lead_0001') },
			path: '/v1/leads/lead_0001',
			list: false,
		},
		{
			label: 'Lead: Get Many',
			svc: { resource: 'lead', operation: 'getAll' },
			path: '/v1/leads',
			list: true,
		},
		{
			label: 'Conversation: Get Many Threads',
			svc: { resource: 'conversation', operation: 'getAllThreads' },
			path: '/v1/threads',
			list: true,
		},
		{
			label: 'Conversation: Get Thread',
			svc: { resource: 'conversation', operation: 'getThread', threadId: byId(longThreadId) },
			path: `/v1/threads/${longThreadId}`,
			list: false,
		},
		{
			label: 'Conversation: Get Messages',
			svc: { resource: 'conversation', operation: 'getMessages', threadId: byId(longThreadId) },
			path: `/v1/threads/${longThreadId}/messages`,
			list: true,
		},
		{
			label: 'Campaign: Get',
			svc: { resource: 'campaign', operation: 'get', campaignId: byId('cmp_0001') },
			path: '/v1/campaigns/cmp_0001',
			list: false,
		},
		{
			label: 'Campaign: Get Many',
			svc: { resource: 'campaign', operation: 'getAll' },
			path: '/v1/campaigns',
			list: true,
		},
		{
			label: 'Webhook Subscription: Get',
			svc: { resource: 'webhookSubscription', operation: 'get', subscriptionId },
			path: `/v1/webhook-subscriptions/${subscriptionId}`,
			list: false,
		},
		{
			label: 'Webhook Subscription: Get Many',
			svc: { resource: 'webhookSubscription', operation: 'getAll' },
			path: '/v1/webhook-subscriptions',
			list: true,
		},
	];
}

/** 200 more leads, a subscription, and a thread of 60 messages on the first lead. */
function growSandbox(sandbox: Sandbox): { longThreadId: string; subscriptionId: string } {
	const { state } = sandbox;
	for (let n = 1; n <= EXTRA_LEADS; n++) {
		upsertLead(state, {
			email: `bench-tool-${n}@example.com`,
			first_name: `Bench${n}`,
			last_name: 'Tool',
			source: 'bench',
			custom_fields: { note: `lead ${n} of the tool bench` },
		});
	}
	const longThreadId = `thr_bench_${randomUUID().slice(0, 8)}`;
	const startedAt = Date.now();
	for (let n = 1; n <= LONG_THREAD_MESSAGES; n++) {
		state.store.messages.set({
			id: `msg_bench_${longThreadId}_${n}`,
			thread_id: longThreadId,
			direction: n % 2 === 0 ? 'outbound' : 'inbound',
			content: `Message ${n}: could you call me back about the pricing sheet at +14155550${String(100 + n)}?`,
			masked: false,
			created_at: new Date(startedAt + n * 1000).toISOString(),
		});
	}
	state.store.threads.set({
		id: longThreadId,
		lead_id: 'lead_0001',
		channel: 'sms',
		status: 'open',
		last_message_at: new Date(startedAt + LONG_THREAD_MESSAGES * 1000).toISOString(),
	});
	const subscription = createSubscription(state, {
		url: 'https://hooks.example.com/bench-tools',
		events: ['lead.created'],
	});
	return { longThreadId, subscriptionId: subscription.id };
}

/** The tool nodes' names: letters, digits and spaces only, so n8n's MCP tool name is plain to predict. */
const nodeName = (tool: 'Svc' | 'HTTP', call: ReadCall) =>
	`${tool} ${call.label.replace(/[^a-zA-Z0-9 ]/g, '')}`;
/** The name n8n's MCP Server Trigger gives a tool node: every other character becomes `_`. */
const toolName = (name: string) => name.replace(/[^a-zA-Z0-9]/g, '_');

function toolsWorkflow(
	calls: ReadCall[],
	credential: CredentialRef,
	baseUrl: string,
): WorkflowInput {
	const trigger = 'MCP Server';
	const credentials = { svcApi: { id: credential.id, name: credential.name } };
	const nodes: WorkflowInput['nodes'] = [
		{
			name: trigger,
			type: '@n8n/n8n-nodes-langchain.mcpTrigger',
			typeVersion: 2,
			parameters: { path: MCP_PATH, authentication: 'none' },
			webhookId: randomUUID(),
		},
	];
	for (const call of calls) {
		nodes.push({
			name: nodeName('Svc', call),
			type: `${SVC_NODE_TYPE}Tool`,
			typeVersion: 1,
			parameters: call.svc,
			credentials,
		});
		nodes.push({
			name: nodeName('HTTP', call),
			type: 'n8n-nodes-base.httpRequestTool',
			typeVersion: 4.2,
			parameters: {
				toolDescription: `GET ${call.path}`,
				method: 'GET',
				url: `${baseUrl}${call.path}`,
				authentication: 'predefinedCredentialType',
				nodeCredentialType: 'svcApi',
				options: {},
			},
			credentials,
		});
	}
	const connections: WorkflowInput['connections'] = {};
	for (const node of nodes.slice(1))
		connections[node.name] = { ai_tool: [[{ node: trigger, type: 'ai_tool', index: 0 }]] };
	return {
		name: 'bench (t): tool answers',
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
	};
}

/** How many records an answer holds: the length of its list (a bare array or a page's `data`), else 1. */
function recordsIn(text: string): number {
	try {
		const parsed: unknown = JSON.parse(text);
		const list =
			Array.isArray(parsed) &&
			parsed.length === 1 &&
			Array.isArray((parsed[0] as { data?: unknown })?.data)
				? (parsed[0] as { data: unknown[] }).data
				: parsed;
		if (Array.isArray(list)) return list.length;
		const data = (list as { data?: unknown })?.data;
		return Array.isArray(data) ? data.length : 1;
	} catch {
		return 1;
	}
}

export async function scenarioT(context: {
	runtime: N8nRuntime;
	tarball: string;
	sandbox: Sandbox;
	apiKey: string;
}): Promise<ToolAnswer[]> {
	const { longThreadId, subscriptionId } = growSandbox(context.sandbox);
	const calls = readCalls(longThreadId, subscriptionId);
	const n8n = await startN8n({
		runtime: context.runtime,
		packageTarball: context.tarball,
		protocol: 'http',
		logLevel: 'warn',
		expectNodeTypes: [SVC_NODE_TYPE],
	});
	try {
		const credential = await importCredential(n8n, {
			name: 'Svc bench',
			type: 'svcApi',
			data: { apiKey: context.apiKey, baseUrl: context.sandbox.url },
		});
		const stored = await importWorkflow(n8n, toolsWorkflow(calls, credential, context.sandbox.url));
		await activate(n8n, stored.id);
		const mcp = await connectMcp(`${n8n.baseUrl}/mcp/${MCP_PATH}`, { timeoutMs: 60_000 });
		try {
			const listed = new Set((await mcp.listTools()).map((tool) => tool.name));
			const missing = calls
				.flatMap((call) => [toolName(nodeName('Svc', call)), toolName(nodeName('HTTP', call))])
				.filter((name) => !listed.has(name));
			if (missing.length > 0)
				throw new Error(
					`The MCP server does not list ${missing.join(', ')} (it lists ${[...listed].join(', ')})`,
				);
			const answers: ToolAnswer[] = [];
			for (const call of calls) {
				const svc = await mcp.callTool(toolName(nodeName('Svc', call)), {});
				const http = await mcp.callTool(toolName(nodeName('HTTP', call)), {});
				const svcText = resultText(svc);
				const httpText = resultText(http);
				answers.push({
					label: call.label,
					list: call.list,
					svcBytes: Buffer.byteLength(svcText),
					httpBytes: Buffer.byteLength(httpText),
					svcRecords: recordsIn(svcText),
					httpRecords: recordsIn(httpText),
					...(svc.isError === true ? { svcError: svcText.slice(0, 200) } : {}),
					...(http.isError === true ? { httpError: httpText.slice(0, 200) } : {}),
				});
			}
			return answers;
		} finally {
			await mcp.close();
		}
	} finally {
		await n8n.stop();
		// The bursts need a sandbox without other subscriptions.
		context.sandbox.state.store.subscriptions.delete(subscriptionId);
	}
}
