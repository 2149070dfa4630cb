/**
 * The Svc node as n8n's AI tool copy (`n8n-nodes-svc.svcTool`), called the two ways n8n 2.41 calls
 * a tool: by a node that invokes it itself, as the MCP Server Trigger does (n8n-core's
 * getInputConnectionData builds the tool with createNodeAsTool: name, description, $fromAI schema;
 * invoking it runs the node's execute() in a SupplyDataContext whose parentNode is the caller), and
 * as the AI Agent 3.x does (it answers WorkflowExecute with an engine request, and the engine runs
 * the tool node and resumes the agent with its result).
 */
import type {
	EngineRequest,
	EngineResponse,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { SvcApi } from '../../credentials/SvcApi.credentials';
import { Svc } from '../../nodes/Svc/Svc.node';
import { TOOL_DEFAULT_LIMIT, TOOL_MAX_LIMIT } from '../../nodes/Svc/actions/tool';
import {
	aiToolNodeType,
	outputOf,
	runWorkflow,
	shutdownEngine,
	startNode,
} from '../../harness/engine';
import {
	FULL_KEY,
	NO_SENSITIVE_KEY,
	READ_ONLY_KEY,
	requestsTo,
	runSvc,
	svcNode,
	useSandbox,
} from '../../harness/engine/svc';
import { SVC_NODE_TYPE } from '../../harness/project';
import type { Sandbox } from '../../sandbox';

const sandbox = useSandbox();
afterAll(async () => await shutdownEngine());

const SVC_TOOL_TYPE = `${SVC_NODE_TYPE}Tool`;
const CALLER_TYPE = 'n8n-harness.toolCaller';

/** What the model would see of the tool, and what one call answered. */
interface ToolCall {
	name: string;
	description: string;
	/** The tool's arguments: one per $fromAI key. */
	arguments: string[];
	result?: unknown;
	error?: string;
}

interface CallableTool {
	name: string;
	description: string;
	schema: { shape?: Record<string, unknown> };
	invoke(args: IDataObject): Promise<unknown>;
}

/**
 * A node that calls its tool itself, as the AI Agent before 3.x or the MCP Server Trigger does: takes
 * the connected tool from n8n and calls it once per input item with that item's `args`.
 */
const callerType: INodeType = {
	description: {
		displayName: 'Tool Caller',
		name: CALLER_TYPE,
		group: ['transform'],
		version: 1,
		description: "Calls the connected tool with each item's args",
		defaults: { name: 'Caller' },
		inputs: [NodeConnectionTypes.Main, { type: NodeConnectionTypes.AiTool, displayName: 'Tools' }],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	},
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const output: INodeExecutionData[] = [];
		const items = this.getInputData();
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const [tool] = (await this.getInputConnectionData(
				NodeConnectionTypes.AiTool,
				itemIndex,
			)) as CallableTool[];
			const call: ToolCall = {
				name: tool.name,
				description: tool.description,
				arguments: Object.keys(tool.schema.shape ?? {}),
			};
			try {
				call.result = JSON.parse(
					String(await tool.invoke((items[itemIndex].json.args ?? {}) as IDataObject)),
				);
			} catch (error) {
				call.error = (error as Error).message;
			}
			output.push({ json: call as unknown as IDataObject, pairedItem: { item: itemIndex } });
		}
		return [output];
	},
};

/** n8n's MCP Server Trigger type: the same calls, and the tool can tell that an MCP client waits for the answer. */
const MCP_TRIGGER_TYPE = '@n8n/n8n-nodes-langchain.mcpTrigger';
const mcpTriggerType: INodeType = {
	...callerType,
	description: {
		...callerType.description,
		displayName: 'MCP Server Trigger',
		name: MCP_TRIGGER_TYPE,
		defaults: { name: 'MCP Server' },
	},
};

const AGENT_TYPE = 'n8n-harness.engineAgent';

/** Stands in for the AI Agent 3.x: asks the engine to run the tool once with its input's `args`, then outputs what the engine answered. */
const agentType: INodeType = {
	description: {
		...callerType.description,
		displayName: 'Engine Agent',
		name: AGENT_TYPE,
		defaults: { name: 'Agent' },
	},
	execute(
		this: IExecuteFunctions,
		response?: EngineResponse,
	): Promise<INodeExecutionData[][] | EngineRequest> {
		if (response === undefined || response.actionResponses.length === 0) {
			const input = (this.getInputData()[0].json.args ?? {}) as IDataObject;
			return Promise.resolve({
				actions: [
					{
						actionType: 'ExecutionNodeAction',
						nodeName: 'Svc',
						input,
						type: NodeConnectionTypes.AiTool,
						id: 'call_1',
						metadata: { itemIndex: 0 },
					},
				],
				metadata: {},
			});
		}
		const [{ data }] = response.actionResponses;
		const answer: IDataObject = {
			error: data.error?.message ?? null,
			items: (data.data?.ai_tool?.[0] ?? []).map((item) => item.json),
		};
		return Promise.resolve([[{ json: answer }]]);
	},
};

/**
 * Runs Start → `consumer` with the Svc tool on the consumer's ai_tool input, one item per entry of
 * `args`; returns the consumer's output.
 */
async function runUnder(
	consumer: { name: string; type: string; nodeType: INodeType },
	box: Sandbox,
	parameters: INodeParameters,
	args: IDataObject[],
	apiKey = FULL_KEY,
	mode?: WorkflowExecuteMode,
): Promise<IDataObject[]> {
	const node: INode = {
		id: `${consumer.name}-1`,
		name: consumer.name,
		type: consumer.type,
		typeVersion: 1,
		position: [200, 0],
		parameters: {},
	};
	const run = await runWorkflow({
		nodes: [startNode(), node, svcNode(parameters, SVC_TOOL_TYPE)],
		connections: {
			Start: { main: [[{ node: consumer.name, type: NodeConnectionTypes.Main, index: 0 }]] },
			Svc: { ai_tool: [[{ node: consumer.name, type: NodeConnectionTypes.AiTool, index: 0 }]] },
		},
		nodeTypes: { [SVC_TOOL_TYPE]: aiToolNodeType(new Svc()), [consumer.type]: consumer.nodeType },
		credentialTypes: [new SvcApi()],
		credentials: { svcApi: { apiKey, baseUrl: box.url } },
		items: args.map((call) => ({ json: { args: call } })),
		mode,
	});
	if (run.data.resultData.error) throw run.data.resultData.error;
	return outputOf(run, consumer.name).map((item) => item.json);
}

/** Runs Start → Agent with the Svc tool connected to it; the agent asks the engine for one tool call. */
async function callToolThroughEngine(
	box: Sandbox,
	parameters: INodeParameters,
	args: IDataObject = {},
	mode?: WorkflowExecuteMode,
): Promise<{ error: string | null; items: IDataObject[] }> {
	const [answer] = await runUnder(
		{ name: 'Agent', type: AGENT_TYPE, nodeType: agentType },
		box,
		parameters,
		[args],
		FULL_KEY,
		mode,
	);
	return answer as { error: string | null; items: IDataObject[] };
}

const CALLER = { name: 'Caller', type: CALLER_TYPE, nodeType: callerType };
/**
 * n8n's MCP Server Trigger as the node that asks for the tool. The trigger answers the client
 * `isError: true` for a thrown error (1.123 and 2.41, McpServer's CallTool handler): `call.error`
 * is that text's message.
 */
const MCP_SERVER = { name: 'MCP Server', type: MCP_TRIGGER_TYPE, nodeType: mcpTriggerType };

/** Runs Start → `consumer` (by default the Caller) with the Svc tool connected to it, calling the tool once per entry of `calls`. */
async function callTool(
	box: Sandbox,
	parameters: INodeParameters,
	calls: IDataObject[] = [{}],
	apiKey = FULL_KEY,
	consumer = CALLER,
): Promise<ToolCall[]> {
	const answers = await runUnder(consumer, box, parameters, calls, apiKey);
	return answers.map((answer) => answer as unknown as ToolCall);
}

/** The tool called as n8n's MCP Server Trigger calls it. */
async function callToolAsMcp(
	box: Sandbox,
	parameters: INodeParameters,
	calls?: IDataObject[],
	apiKey?: string,
): Promise<ToolCall[]> {
	return await callTool(box, parameters, calls, apiKey, MCP_SERVER);
}

/** The cause and the fix of a call thrown to an MCP client, after checking that nothing was answered. */
function mcpFailureOf(call: ToolCall): { cause: string; fix: string } {
	expect(call.result).toBeUndefined();
	expect(call.error).toMatch(/^[^\n]+\n\nDetails: [^\n]+$/);
	const [cause, fix] = (call.error ?? '').split('\n\nDetails: ');
	return { cause, fix };
}

/**
 * The item a failed call answers as a tool (what "On Error: Continue" gives a plain node): the
 * tool does not throw, so the model gets the cause and the fix, not only a message.
 */
interface ErrorItem {
	error: string;
	description?: string;
}

/** The one error item a call answered, after checking that nothing was thrown. */
function errorItemOf(call: ToolCall): ErrorItem {
	expect(call.error).toBeUndefined();
	expect(call.result).toEqual([
		{ error: expect.any(String) as unknown, description: expect.any(String) as unknown },
	]);
	return (call.result as ErrorItem[])[0];
}

const DISPATCH_ROUTE = 'POST /v1/campaigns/{campaign_id}/dispatch';
const campaign = (value: string) => ({ __rl: true, mode: 'id', value });

const PROTECTED: Array<{ label: string; parameters: INodeParameters; refusal: RegExp }> = [
	{
		label: 'Campaign Dispatch',
		parameters: { resource: 'campaign', operation: 'dispatch', campaignId: campaign('cmp_0002') },
		refusal:
			/^Campaign Dispatch is not allowed for AI use in this tool: a person must switch on 'Allow Use by AI' in the node; a model cannot/,
	},
	{
		label: 'Webhook Subscription Create',
		parameters: {
			resource: 'webhookSubscription',
			operation: 'create',
			url: 'https://attacker.example.net/collect',
			events: ['lead.created'],
		},
		refusal:
			/^Webhook Subscription Create is not allowed for AI use in this tool: a person must switch on 'Allow Use by AI' in the node; a model cannot/,
	},
	{
		label: 'Webhook Subscription Delete',
		parameters: {
			resource: 'webhookSubscription',
			operation: 'delete',
			subscriptionId: 'sub_anything',
		},
		refusal:
			/^Webhook Subscription Delete is not allowed for AI use in this tool: a person must switch on 'Allow Use by AI' in the node; a model cannot/,
	},
];

const NOT_ALLOWED: Array<[string, INodeParameters, RegExp]> = [
	// n8n fills in the default (false) for a displayed parameter the workflow does not store.
	['missing', {}, /'Allow Use by AI' is off in this node/],
	['false', { allowToolUse: false }, /'Allow Use by AI' is off in this node/],
	[
		'a $fromAI expression',
		{
			allowToolUse: "={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('allow', '', 'boolean') }}",
		},
		/holds an expression/,
	],
	['an expression that is true', { allowToolUse: '={{ true }}' }, /holds an expression/],
];

describe("as an AI tool, Dispatch and Webhook Subscription Create/Delete need a person's switch", () => {
	describe.each(PROTECTED)('$label', ({ parameters, refusal }) => {
		it.each(NOT_ALLOWED)(
			'is refused before any request when Allow Use by AI is %s: an error item with the cause and the fix',
			async (_case, allow, cause) => {
				// The model says yes to everything it is asked: that changes nothing.
				const [call] = await callTool(
					sandbox(),
					{ ...parameters, ...allow, confirmDispatch: "={{ $fromAI('confirm', '', 'boolean') }}" },
					[{ allow: true, confirm: true }],
				);
				const item = errorItemOf(call);
				expect(item.error).toMatch(refusal);
				expect(item.description).toMatch(cause);
				expect(item.description).toContain('Nothing was sent to the service.');
				expect(item.description).toMatch(
					/a person opens this tool node in the editor and switches on 'Allow Use by AI'\.$/,
				);
				expect(sandbox().state.requests.all()).toHaveLength(0);
			},
		);
	});

	it('Dispatch runs once when a person switched Allow Use by AI on', async () => {
		const [call] = await callTool(
			sandbox(),
			{
				...PROTECTED[0].parameters,
				allowToolUse: true,
				leadIds: "={{ $fromAI('Lead_IDs', '', 'string') }}",
			},
			[{ Lead_IDs: 'lead_0001' }],
		);
		expect(call.error).toBeUndefined();
		expect(call.result).toEqual([
			expect.objectContaining({ campaign_id: 'cmp_0002', status: 'queued' }),
		]);
		const requests = requestsTo(sandbox(), DISPATCH_ROUTE);
		expect(requests).toHaveLength(1);
		expect(requests[0].body).toEqual({ lead_ids: ['lead_0001'] });
		expect(sandbox().state.stats.snapshot().dispatches).toBe(1);
	});

	it('Dispatch as a tool: the model fills Lead IDs but cannot choose the whole audience, nor send a draft', async () => {
		const [noIds] = await callTool(
			sandbox(),
			{
				...PROTECTED[0].parameters,
				allowToolUse: true,
				leadIds: "={{ $fromAI('Lead_IDs', '', 'string') }}",
			},
			[{ Lead_IDs: '' }],
		);
		expect(errorItemOf(noIds).error).toBe('No lead IDs were given, so nothing was sent');
		const [widened] = await callTool(
			sandbox(),
			{
				...PROTECTED[0].parameters,
				allowToolUse: true,
				audience: "={{ $fromAI('audience', '', 'string') }}",
			},
			[{ audience: 'wholeAudience' }],
		);
		expect(errorItemOf(widened).error).toBe(
			"'Send To' is not one of its choices, so nothing was sent",
		);
		const [draft] = await callTool(sandbox(), {
			...PROTECTED[0].parameters,
			campaignId: campaign('cmp_0001'),
			allowToolUse: true,
			leadIds: 'lead_0001',
		});
		expect(errorItemOf(draft).error).toMatch(/is draft, not approved, so nothing was sent/);
		expect(requestsTo(sandbox(), DISPATCH_ROUTE)).toHaveLength(0);
	});

	it('Webhook Subscription Create and Delete run once each when allowed', async () => {
		const [created] = await callTool(sandbox(), {
			...PROTECTED[1].parameters,
			url: 'https://hooks.example.com/svc',
			allowToolUse: true,
		});
		expect(created.error).toBeUndefined();
		const [subscription] = created.result as Array<{ id: string; secret?: string }>;
		expect(subscription.secret).toBe('[redacted]');
		expect(requestsTo(sandbox(), 'POST /v1/webhook-subscriptions')).toHaveLength(1);

		const [deleted] = await callTool(sandbox(), {
			...PROTECTED[2].parameters,
			subscriptionId: subscription.id,
			allowToolUse: true,
		});
		expect(deleted.result).toEqual([{ id: subscription.id, deleted: true }]);
		expect(
			requestsTo(sandbox(), 'DELETE /v1/webhook-subscriptions/{subscription_id}'),
		).toHaveLength(1);
	});

	it('the same holds when an AI Agent 3.x has the engine run the tool', async () => {
		const refused = await callToolThroughEngine(
			sandbox(),
			{ ...PROTECTED[0].parameters, allowToolUse: "={{ $fromAI('allow', '', 'boolean') }}" },
			{ allow: true },
		);
		expect(refused.error).toBeNull();
		expect(refused.items).toEqual([
			{
				error: expect.stringMatching(PROTECTED[0].refusal) as unknown,
				description: expect.stringMatching(
					/holds an expression.*Nothing was sent to the service\./,
				) as unknown,
			},
		]);
		expect(sandbox().state.requests.all()).toHaveLength(0);
		const allowed = await callToolThroughEngine(sandbox(), {
			...PROTECTED[0].parameters,
			allowToolUse: true,
			audience: 'wholeAudience',
		});
		expect(allowed.error).toBeNull();
		expect(allowed.items).toEqual([
			expect.objectContaining({ campaign_id: 'cmp_0002', status: 'queued' }),
		]);
		expect(requestsTo(sandbox(), DISPATCH_ROUTE)).toHaveLength(1);
	});

	it('reads are not gated', async () => {
		const [call] = await callTool(sandbox(), {
			resource: 'campaign',
			operation: 'get',
			campaignId: campaign('cmp_0001'),
		});
		expect(call.result).toEqual([expect.objectContaining({ id: 'cmp_0001' })]);
	});

	it('the plain node (not a tool) dispatches as before with its confirmation, and ignores allowToolUse', async () => {
		const refused = await runSvc(sandbox(), {
			...PROTECTED[0].parameters,
			allowToolUse: true,
			leadIds: 'lead_0001',
		});
		expect(refused.error?.message).toBe('Dispatch was not confirmed, so nothing was sent');
		expect(requestsTo(sandbox(), DISPATCH_ROUTE)).toHaveLength(0);
		const sent = await runSvc(sandbox(), {
			...PROTECTED[0].parameters,
			confirmDispatch: true,
			audience: 'wholeAudience',
		});
		expect(sent.error).toBeUndefined();
		expect(sent.output[0].json).toMatchObject({ campaign_id: 'cmp_0002', status: 'queued' });
		expect(requestsTo(sandbox(), DISPATCH_ROUTE)).toHaveLength(1);
	});
});

describe('what the model is told', () => {
	it('each operation\'s own description, not n8n\'s automatic "<action> in Svc"', async () => {
		const [call] = await callTool(
			sandbox(),
			{
				resource: 'lead',
				operation: 'get',
				leadId: {
					__rl: true,
					mode: 'id',
					value: "={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('Lead', '', 'string') }}",
				},
			},
			[{ Lead: 'lead_0001' }],
		);
		expect(call.name).toBe('Svc');
		expect(call.description).toMatch(
			/^Get one lead from Svc by its ID\. Pass Lead: the lead's ID, e\.g\. lead_0001/,
		);
		expect(call.arguments).toEqual(['Lead']);
		expect(call.result).toEqual([
			expect.objectContaining({ id: 'lead_0001', consent_status: expect.anything() as unknown }),
		]);
	});

	it('a description the person wrote in the node wins', async () => {
		const [call] = await callTool(sandbox(), {
			resource: 'account',
			operation: 'getMe',
			toolDescription: 'Who am I',
		});
		expect(call.description).toBe('Who am I');
	});
});

describe('reads answer compactly as a tool', () => {
	it(`Get Many leads: ${TOOL_DEFAULT_LIMIT} simplified leads by default, no Return All`, async () => {
		const [call] = await callTool(sandbox(), {
			resource: 'lead',
			operation: 'getAll',
			returnAll: true,
		});
		const leads = call.result as IDataObject[];
		expect(leads.length).toBeLessThanOrEqual(TOOL_DEFAULT_LIMIT);
		expect(leads.length).toBeGreaterThan(0);
		const simplified = [
			'id',
			'email',
			'phone',
			'first_name',
			'last_name',
			'external_id',
			'source',
			'consent_status',
		];
		for (const lead of leads)
			expect(Object.keys(lead).filter((key) => !simplified.includes(key))).toEqual([]);
		expect(requestsTo(sandbox(), 'GET /v1/leads')[0].query.limit).toBe(String(TOOL_DEFAULT_LIMIT));
	});

	it(`a model-filled Max Results is capped at ${TOOL_MAX_LIMIT}`, async () => {
		const [call] = await callTool(
			sandbox(),
			{
				resource: 'campaign',
				operation: 'getAll',
				maxResults: "={{ $fromAI('Max_Results', '', 'number') }}",
			},
			[{ Max_Results: 100000 }],
		);
		expect(call.error).toBeUndefined();
		expect(call.result).not.toContainEqual(
			expect.objectContaining({ error: expect.anything() as unknown }),
		);
		const pages = requestsTo(sandbox(), 'GET /v1/campaigns');
		expect(pages.length).toBeGreaterThan(0);
		for (const page of pages)
			expect(Number(page.query.limit ?? 0)).toBeLessThanOrEqual(TOOL_MAX_LIMIT);
	});

	it('Get Messages keeps the masked flag in simplified messages', async () => {
		const [call] = await callTool(
			sandbox(),
			{
				resource: 'conversation',
				operation: 'getMessages',
				threadId: { __rl: true, mode: 'id', value: 'thr_0001' },
			},
			[{}],
			NO_SENSITIVE_KEY,
		);
		const messages = call.result as IDataObject[];
		expect(messages.length).toBeGreaterThan(0);
		for (const message of messages) expect(message.masked).toBe(true);
		// No reason per message: the tool's description tells the model what masked means.
		expect(Object.keys(messages[0]).sort()).toEqual([
			'content',
			'created_at',
			'direction',
			'id',
			'masked',
		]);
	});

	it('Map Automatically is refused on the tool, before any request', async () => {
		const [call] = await callTool(sandbox(), {
			resource: 'lead',
			operation: 'upsert',
			inputMode: 'mapAutomatically',
		});
		expect(errorItemOf(call).error).toMatch(
			/^Map Automatically is not available when this node runs as an AI tool/,
		);
		expect(sandbox().state.requests.all()).toHaveLength(0);
	});
});

describe('a service error answers the model as an item, with the cause and the fix', () => {
	const unknownLead = {
		resource: 'lead',
		operation: 'get',
		leadId: { __rl: true, mode: 'id', value: 'lead_9999' },
	};
	const upsert = {
		resource: 'lead',
		operation: 'upsert',
		inputMode: 'defineBelow',
		email: "={{ $fromAI('Email', '', 'string') }}",
	};
	/** Neither the key nor its secret part (after the `svc_live_` prefix) anywhere. */
	const expectNoKey = (value: unknown, key: string) => {
		const text = JSON.stringify(value);
		expect(text).not.toContain(key);
		expect(text).not.toContain(key.slice(9));
	};

	it('404 on Lead Get of an unknown ID, called by a node that invokes the tool itself (an AI Agent before 3.x)', async () => {
		const [call] = await callTool(sandbox(), unknownLead);
		const item = errorItemOf(call);
		expect(item.error).toBe('The resource was not found (404)');
		expect(item.description).toBe(
			'GET /v1/leads/{lead_id}: check the ID. The service said: No lead with id "lead_9999"',
		);
		expectNoKey(call, FULL_KEY);
		expect(requestsTo(sandbox(), 'GET /v1/leads/{lead_id}')).toHaveLength(1);
	});

	it('404 through the engine, as the AI Agent 3.x runs it: an answer, not an error', async () => {
		const answer = await callToolThroughEngine(sandbox(), unknownLead);
		expect(answer.error).toBeNull();
		expect(answer.items).toEqual([
			{
				error: 'The resource was not found (404)',
				description: expect.stringContaining('check the ID.') as unknown,
			},
		]);
		expectNoKey(answer, FULL_KEY);
	});

	it('403 with a key lacking leads:write names the scope and where to grant it', async () => {
		const [call] = await callTool(sandbox(), upsert, [{ Email: 'ada@example.com' }], READ_ONLY_KEY);
		const item = errorItemOf(call);
		expect(item.error).toBe(
			'The API key lacks the scope "leads:write" that this operation needs (403)',
		);
		expect(item.description).toMatch(
			/requires the scope leads:write.*In the service's dashboard \(Settings > API keys\) create or edit a key with that scope and use it in the Svc API credential\./,
		);
		expectNoKey(call, READ_ONLY_KEY);
	});

	it('a malformed API key answers the model before any request, without the key', async () => {
		const malformed = 'svc_live_short';
		const [call] = await callTool(sandbox(), unknownLead, [{}], malformed);
		const item = errorItemOf(call);
		expect(item.error).toMatch(/not in an accepted format/);
		expect(item.description).toBe('Edit the Svc API credential of this node.');
		expect(JSON.stringify(call)).not.toContain(malformed);
		expect(sandbox().state.requests.all()).toHaveLength(0);
	});

	it('the plain node still throws the same errors unless On Error: Continue', async () => {
		const notFound = await runSvc(sandbox(), unknownLead);
		expect(notFound.output).toEqual([]);
		expect(notFound.error?.message).toBe('The resource was not found (404)');
		expect(notFound.error?.description).toContain('check the ID.');
		const forbidden = await runSvc(
			sandbox(),
			{ ...upsert, email: 'ada@example.com' },
			{ apiKey: READ_ONLY_KEY },
		);
		expect(forbidden.error?.message).toBe(
			'The API key lacks the scope "leads:write" that this operation needs (403)',
		);
	});
});

describe('an MCP client is told of a failure by a thrown error (isError: true), with the cause and the fix', () => {
	const unknownLead = {
		resource: 'lead',
		operation: 'get',
		leadId: { __rl: true, mode: 'id', value: 'lead_9999' },
	};

	it('a 404: the cause, then the fix after "Details:", once; no key', async () => {
		const [call] = await callToolAsMcp(sandbox(), unknownLead);
		expect(mcpFailureOf(call)).toEqual({
			cause: 'The resource was not found (404)',
			fix: 'GET /v1/leads/{lead_id}: check the ID. The service said: No lead with id "lead_9999"',
		});
		expect(JSON.stringify(call)).not.toContain(FULL_KEY.slice(9));
		expect(requestsTo(sandbox(), 'GET /v1/leads/{lead_id}')).toHaveLength(1);
	});

	describe.each(PROTECTED)('$label', ({ parameters, refusal }) => {
		it.each(NOT_ALLOWED)(
			'is refused before any request when Allow Use by AI is %s',
			async (_case, allow, cause) => {
				const [call] = await callToolAsMcp(
					sandbox(),
					{ ...parameters, ...allow, confirmDispatch: "={{ $fromAI('confirm', '', 'boolean') }}" },
					[{ allow: true, confirm: true }],
				);
				const failure = mcpFailureOf(call);
				expect(failure.cause).toMatch(refusal);
				expect(failure.fix).toMatch(cause);
				expect(failure.fix).toMatch(
					/Nothing was sent to the service\. .*a person opens this tool node in the editor and switches on 'Allow Use by AI'\.$/,
				);
				expect(sandbox().state.requests.all()).toHaveLength(0);
			},
		);
	});

	it('a 403, a malformed key and Map Automatically are thrown with their fix too', async () => {
		const upsert = {
			resource: 'lead',
			operation: 'upsert',
			inputMode: 'defineBelow',
			email: "={{ $fromAI('Email', '', 'string') }}",
		};
		const [forbidden] = await callToolAsMcp(
			sandbox(),
			upsert,
			[{ Email: 'ada@example.com' }],
			READ_ONLY_KEY,
		);
		expect(mcpFailureOf(forbidden).cause).toBe(
			'The API key lacks the scope "leads:write" that this operation needs (403)',
		);
		expect(mcpFailureOf(forbidden).fix).toMatch(
			/create or edit a key with that scope and use it in the Svc API credential\.$/,
		);
		const [malformed] = await callToolAsMcp(sandbox(), unknownLead, [{}], 'svc_live_short');
		expect(mcpFailureOf(malformed)).toEqual({
			cause: expect.stringMatching(/not in an accepted format/) as unknown,
			fix: 'Edit the Svc API credential of this node.',
		});
		expect(JSON.stringify(malformed)).not.toContain('svc_live_short');
		const [mapped] = await callToolAsMcp(sandbox(), {
			resource: 'lead',
			operation: 'upsert',
			inputMode: 'mapAutomatically',
		});
		expect(mcpFailureOf(mapped).cause).toMatch(
			/^Map Automatically is not available when this node runs as an AI tool/,
		);
	});

	it('a call that works answers as before, and another node calling the tool still gets the error item', async () => {
		const [read] = await callToolAsMcp(sandbox(), {
			resource: 'campaign',
			operation: 'get',
			campaignId: campaign('cmp_0001'),
		});
		expect(read.error).toBeUndefined();
		expect(read.result).toEqual([expect.objectContaining({ id: 'cmp_0001' })]);
		const [other] = await callTool(sandbox(), unknownLead);
		expect(errorItemOf(other).error).toBe('The resource was not found (404)');
	});
});

describe('in an n8n evaluation run, a tool that messages leads sends nothing unless a person allows it', () => {
	it('an allowed Dispatch tool answers what it did not send; the service gets nothing', async () => {
		const dispatch = {
			...PROTECTED[0].parameters,
			allowToolUse: true,
			leadIds: "={{ $fromAI('leadIds', '', 'string') }}",
		};
		const held = await callToolThroughEngine(
			sandbox(),
			dispatch,
			{ leadIds: 'lead_0001' },
			'evaluation',
		);
		expect(held.error).toBeNull();
		expect(held.items).toEqual([
			expect.objectContaining({
				sent: false,
				reason: 'evaluation',
				message: expect.stringMatching(
					/^Not sent: n8n is running this workflow as an evaluation, and Campaign Dispatch messages real leads\./,
				) as unknown,
			}),
		]);
		expect(
			sandbox()
				.state.requests.all()
				.filter((request) => request.route !== null),
		).toEqual([]);
		// The same tool outside an evaluation sends.
		const sent = await callToolThroughEngine(sandbox(), dispatch, { leadIds: 'lead_0001' });
		expect(sent.items).toEqual([expect.objectContaining({ status: 'queued' })]);
		expect(requestsTo(sandbox(), DISPATCH_ROUTE)).toHaveLength(1);
	});
});
