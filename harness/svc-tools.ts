/**
 * Workflows that hand the Svc node to a model: the Svc tools the suites give an AI Agent or an MCP
 * Server Trigger, and the workflows around them, as n8n's editor would save them.
 */
import { randomUUID } from 'node:crypto';
import type { INodeParameters } from 'n8n-workflow';

import type { N8nInstance } from './n8n/instance';
import type { CredentialRef, WorkflowInput, WorkflowNodeInput, WorkflowRecord } from './n8n/api';
import { activate } from './n8n/api';
import type { RuntimeVersion } from './n8n-runtime/install';

/** A parameter the model fills, in the form n8n's editor writes. */
export function fromAI(
	key: string,
	description: string,
	type: 'string' | 'number' | 'boolean' | 'json' = 'string',
): string {
	return `={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('${key}', '${description}', '${type}') }}`;
}

/** A resource locator set by id. */
export const byId = (value: string): INodeParameters => ({ __rl: true, mode: 'id', value });

/** The Svc tools the agent and the MCP server are given, by node name. */
export const SVC_TOOLS: Record<string, INodeParameters> = {
	'Find Lead': {
		toolDescription:
			'Find a lead in Svc by its exact email address. Returns a list with that lead (its id, name, consent and status), or an empty list when there is none.',
		resource: 'lead',
		operation: 'getAll',
		maxResults: 1,
		filters: { email: fromAI('email', 'The email address of the lead') },
	},
	'Get Lead': {
		toolDescription:
			'Get one lead from Svc by its lead id, e.g. lead_0001. Returns the lead with its email, name, consent and status.',
		resource: 'lead',
		operation: 'get',
		leadId: byId(fromAI('leadId', 'The id of the lead, e.g. lead_0001')),
	},
	'Save Lead': {
		toolDescription:
			'Create a lead in Svc, or update the lead that has this email address. Pass the email and the first name. Returns the lead with its id.',
		resource: 'lead',
		operation: 'upsert',
		email: fromAI('email', 'The email address of the lead'),
		additionalFields: { first_name: fromAI('firstName', 'The first name of the lead') },
	},
	'Hand To Assistant': {
		toolDescription:
			'Hand a lead to the assistant, which takes over the conversation. Needs the lead id and a short note saying why.',
		resource: 'conversation',
		operation: 'assistantTakeover',
		leadId: byId(fromAI('leadId', 'The id of the lead, e.g. lead_0001')),
		note: fromAI('note', 'Why the lead is handed over'),
	},
	// 'Allow Use by AI' is not switched on: the tool refuses, whatever the model confirms.
	'Dispatch Campaign': {
		toolDescription:
			"Send a Svc campaign now to the leads this tool was set up with. Pass the campaign's id, e.g. cmp_0001, and confirm dispatch: true to really send. It runs only if a person switched on 'Allow Use by AI' in this tool.",
		resource: 'campaign',
		operation: 'dispatch',
		campaignId: byId(fromAI('campaignId', 'The id of the campaign, e.g. cmp_0001')),
		confirmDispatch: fromAI('confirm', 'Whether to really send', 'boolean'),
		// Fixed: n8n refuses to publish a workflow whose Dispatch has no Lead IDs (a required field).
		leadIds: 'lead_0001',
	},
};

/** The refusal of a protected operation while 'Allow Use by AI' is off: the cause, and the fix only a person can make. */
export const REFUSAL =
	/^Campaign Dispatch is not allowed for AI use in this tool: a person must switch on 'Allow Use by AI' in the node; a model cannot/;
export const REFUSAL_FIX =
	/Nothing was sent to the service\. To let the model dispatch a campaign, a person opens this tool node in the editor and switches on 'Allow Use by AI'\./;

/** A Svc tool node (the type n8n generates for a node with `usableAsTool`). */
export function svcTool(
	name: string,
	parameters: INodeParameters,
	credential: CredentialRef,
): WorkflowNodeInput {
	return {
		name,
		type: 'n8n-nodes-svc.svcTool',
		typeVersion: 1,
		parameters,
		credentials: { svcApi: { id: credential.id, name: credential.name } },
	};
}

/** How far apart tools sit under their root on the canvas: their labels never run into each other. */
const TOOL_SPACING = 220;

/**
 * `root` with each tool attached by an ai_tool connection, placed in a row under it and to the
 * right of its chat model's slot, unless the tool has a position.
 */
export function withTools(
	workflow: WorkflowInput,
	root: string,
	tools: WorkflowNodeInput[],
): WorkflowInput {
	const [rootX, rootY] = workflow.nodes.find((node) => node.name === root)?.position ?? [0, 0];
	const connections = { ...workflow.connections };
	for (const tool of tools)
		connections[tool.name] = { ai_tool: [[{ node: root, type: 'ai_tool', index: 0 }]] };
	const placed = tools.map((tool, index): WorkflowNodeInput => ({
		position: [rootX + 160 + index * TOOL_SPACING, rootY + 240],
		...tool,
	}));
	return { ...workflow, nodes: [...workflow.nodes, ...placed], connections };
}

/** The MCP Server Trigger node's name in `mcpServerWorkflow`. */
export const MCP_SERVER = 'MCP Server';

/** A workflow with only n8n's MCP Server Trigger at `/mcp/<path>`, with bearer auth when a credential is given. */
export function mcpServerWorkflow(
	name: string,
	path: string,
	bearer?: CredentialRef,
): WorkflowInput {
	return {
		name,
		nodes: [
			{
				name: MCP_SERVER,
				type: '@n8n/n8n-nodes-langchain.mcpTrigger',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: bearer
					? { path, authentication: 'bearerAuth' }
					: { path, authentication: 'none' },
				...(bearer
					? { credentials: { httpBearerAuth: { id: bearer.id, name: bearer.name } } }
					: {}),
			},
		],
		connections: {},
		settings: { executionOrder: 'v1' },
	};
}

/** The tools `npm run dev`'s MCP server offers: reads and an upsert, nothing that messages a lead. */
export const DEV_MCP_TOOLS = ['Find Lead', 'Get Lead', 'Save Lead'];

/** The note on `npm run dev`'s MCP server, as each example has one. */
const DEV_MCP_NOTE: WorkflowNodeInput = {
	name: 'About This Example',
	type: 'n8n-nodes-base.stickyNote',
	typeVersion: 1,
	position: [-520, -140],
	parameters: {
		content: [
			'## MCP server for leads',
			"Gives any MCP client (Claude Desktop, Cursor, n8n's MCP Client Tool) three Svc tools: **Find Lead** (by exact email), **Get Lead** (by lead id) and **Save Lead** (create, or update the lead with that email). None of them sends anything to a lead.",
			'',
			"**Connect:** the MCP server's URL and bearer token are in the lines `npm run dev` printed (the token is the credential **MCP bearer (local)**). The workflow is published, so it answers at once: the command printed there finds ada.lovelace@example.com with Find_Lead.",
			'',
			"**Change what a model may do:** add or remove Svc tool nodes under **MCP Server**. A tool's **Tool Description** is what the model reads. A tool that dispatches campaigns or changes subscriptions runs only when a person switches on **Allow Use by AI** in it.",
		].join('\n'),
		height: 340,
		width: 440,
		color: 7,
	},
};

/** `npm run dev`'s MCP server, "Svc: MCP server for leads", at `/mcp/<path>` behind `bearer`. */
export function devMcpServerWorkflow(
	path: string,
	bearer: CredentialRef,
	svcCredential: CredentialRef,
): WorkflowInput {
	const server = withTools(
		mcpServerWorkflow('Svc: MCP server for leads', path, bearer),
		MCP_SERVER,
		DEV_MCP_TOOLS.map((name) => svcTool(name, SVC_TOOLS[name], svcCredential)),
	);
	return { ...server, nodes: [...server.nodes, DEV_MCP_NOTE] };
}

/**
 * Publishes (1.x: activates) an MCP server workflow. 2.x publishes the stored version through the
 * editor's REST call, as the Publish button does.
 */
export async function publishMcpServer(
	n8n: N8nInstance,
	workflow: WorkflowRecord,
	version: RuntimeVersion,
): Promise<void> {
	if (version === 'v1') {
		await activate(n8n, workflow.id);
		return;
	}
	const result = await n8n.rest('POST', `/workflows/${workflow.id}/activate`, {
		versionId: workflow.versionId,
	});
	if (result.status !== 200)
		throw new Error(
			`POST /rest/workflows/${workflow.id}/activate answered ${result.status}: ${JSON.stringify(result.body)}`,
		);
}

/** The AI Agent node's name in `agentWorkflow`. */
export const AGENT = 'Agent';

/**
 * A webhook at `path` that gives its body's `prompt` to n8n's AI Agent (OpenAI chat model node on
 * `modelCredential`, model `modelId`) and answers with the agent's output once it has ended, at
 * once with `respond: 'onReceived'` (for a run that waits for a person), or as the agent streams it
 * with `respond: 'streaming'`.
 */
export function agentWorkflow(options: {
	name: string;
	path: string;
	version: RuntimeVersion;
	modelId: string;
	modelCredential: CredentialRef;
	respond?: 'lastNode' | 'onReceived' | 'streaming';
}): WorkflowInput {
	const { modelCredential } = options;
	return {
		name: options.name,
		nodes: [
			{
				name: 'Ask',
				position: [0, 0],
				type: 'n8n-nodes-base.webhook',
				// Streaming answers came with version 2.1 of the Webhook node.
				typeVersion: options.respond === 'streaming' ? 2.1 : 2,
				webhookId: randomUUID(),
				parameters: {
					httpMethod: 'POST',
					path: options.path,
					responseMode: options.respond ?? 'lastNode',
					options: {},
				},
			},
			{
				name: AGENT,
				position: [260, 0],
				type: '@n8n/n8n-nodes-langchain.agent',
				typeVersion: options.version === 'v2' ? 3.1 : 3,
				parameters: {
					promptType: 'define',
					text: '={{ $json.body.prompt }}',
					options: { enableStreaming: options.respond === 'streaming' },
				},
			},
			{
				name: 'Chat Model',
				position: [180, 240],
				type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
				typeVersion: 1.3,
				parameters: { model: byId(options.modelId), responsesApiEnabled: false, options: {} },
				credentials: { openAiApi: { id: modelCredential.id, name: modelCredential.name } },
			},
		],
		connections: {
			Ask: { main: [[{ node: AGENT, type: 'main', index: 0 }]] },
			'Chat Model': {
				ai_languageModel: [[{ node: AGENT, type: 'ai_languageModel', index: 0 }]],
			},
		},
		settings: { executionOrder: 'v1' },
	};
}

/** n8n 2.x's human-review tool generated from Email Send (1.x has none). */
export const EMAIL_REVIEW_TYPE = 'n8n-nodes-base.emailSendHitlTool';
/** Its node's name in `reviewedDispatchAgent`. */
export const DISPATCH_REVIEW = 'Review Dispatch';

/**
 * The agent of `agentWorkflow`, answering at once, with a Campaign Dispatch tool that a person
 * allowed ('Allow Use by AI') and that runs only once a reviewer approves each call by email:
 * n8n's Email Send human review sits between the tool and the agent.
 */
export function reviewedDispatchAgent(
	options: Omit<Parameters<typeof agentWorkflow>[0], 'respond'> & {
		svcCredential: CredentialRef;
		smtpCredential: CredentialRef;
		reviewer: string;
	},
): WorkflowInput {
	const { svcCredential, smtpCredential, reviewer, ...agent } = options;
	const dispatch: WorkflowNodeInput = {
		...svcTool(
			'Dispatch Campaign',
			{
				resource: 'campaign',
				operation: 'dispatch',
				campaignId: byId(fromAI('campaignId', 'The id of the campaign, e.g. cmp_0001')),
				leadIds: fromAI('leadIds', 'The ids of the leads to send to, comma-separated'),
				allowToolUse: true,
			},
			svcCredential,
		),
		position: [420, 480],
	};
	const review: WorkflowNodeInput = {
		name: DISPATCH_REVIEW,
		position: [420, 240],
		type: EMAIL_REVIEW_TYPE,
		typeVersion: 2.1,
		parameters: {
			fromEmail: 'n8n@example.com',
			toEmail: reviewer,
			subject: 'Approve a campaign dispatch?',
			approvalOptions: { values: { approvalType: 'double' } },
			options: {},
		},
		credentials: { smtp: { id: smtpCredential.id, name: smtpCredential.name } },
	};
	const base = agentWorkflow({ ...agent, respond: 'onReceived' });
	return withTools(withTools(base, AGENT, [review]), DISPATCH_REVIEW, [dispatch]);
}
