/**
 * The node as an AI tool. n8n (2.41.1, NodeTypes.getByNameAndVersion and convertNodeToAiTool) makes
 * a tool copy of a node with `usableAsTool` whose type is the node's type plus "Tool"
 * (`n8n-nodes-svc.svcTool`, or `CUSTOM.svcTool` when loaded through N8N_CUSTOM_EXTENSIONS); the
 * copy runs the same execute(). The `'@tool'` display condition reads the same suffix, from the
 * type's name, in the editor and when the Workflow fills in a node's parameters at run time.
 */

import type {
	IDisplayOptions,
	IExecuteFunctions,
	INode,
	INodeParameters,
	INodeProperties,
	NodeError,
} from 'n8n-workflow';

import { storedSetting } from './itemParameters';

/** Whether this node runs as n8n's tool copy (for an AI Agent or an MCP Server Trigger). */
export function runsAsTool(node: Pick<INode, 'type'>): boolean {
	return node.type.endsWith('Tool');
}

/** n8n's MCP Server Trigger, the same type on 1.x and 2.x (2.x's n8n-workflow exports it as MCP_TRIGGER_NODE_TYPE; 1.x's does not). */
const MCP_TRIGGER_TYPE = '@n8n/n8n-nodes-langchain.mcpTrigger';

/**
 * Whether this run of the tool answers an MCP client. n8n's MCP Server Trigger takes its tools
 * through n8n-core's getInputConnectionData, which runs each call in a SupplyDataContext whose
 * `parentNode` is the node that asked for the tool (1.123 and 2.41; 2.41's queue-mode worker sets
 * it to the trigger too). The AI Agent 3.x has the engine run the tool in an ExecuteContext, which
 * has no `parentNode`. The field is not in n8n-workflow's types: read with care, and anything else
 * counts as no MCP client, so the tool answers with an error item as before.
 */
export function answersMcpClient(ctx: IExecuteFunctions): boolean {
	if (!('parentNode' in ctx)) return false;
	const parent = ctx.parentNode;
	return (
		typeof parent === 'object' &&
		parent !== null &&
		'type' in parent &&
		parent.type === MCP_TRIGGER_TYPE
	);
}

/**
 * A failure as it is thrown to an MCP client: n8n's MCP Server Trigger sets `isError: true` only
 * for a thrown error, and 2.41's queue-mode worker passes on the message alone, so the fix joins
 * the cause there, the way n8n-core's tool wrapper joins them ("Details:").
 */
export function withFixInMessage(error: NodeError): NodeError {
	if (error.description && !error.message.includes(error.description))
		error.message = `${error.message}\n\nDetails: ${error.description}`;
	return error;
}

/** Adds `'@tool'` to each property's `show`: shown (and read at run time) only on the tool, or only on the plain node. */
function onlyWhereTool(tool: boolean, properties: INodeProperties[]): INodeProperties[] {
	return properties.map((property) => {
		const displayOptions: IDisplayOptions = {
			...property.displayOptions,
			show: { ...property.displayOptions?.show, '@tool': [tool] },
		};
		return { ...property, displayOptions };
	});
}

export const toolOnly = (properties: INodeProperties[]): INodeProperties[] =>
	onlyWhereTool(true, properties);
export const plainOnly = (properties: INodeProperties[]): INodeProperties[] =>
	onlyWhereTool(false, properties);

export const ALLOW_TOOL_USE = 'allowToolUse';
export const ALLOW_TOOL_USE_LABEL = 'Allow Use by AI';

/**
 * The switch a person turns on in the tool node for an operation that a model must not start
 * alone. `noDataExpression` keeps n8n's editor from offering "Let the model define this
 * parameter" for it; the run-time check below refuses anything but the stored literal `true`.
 */
export const allowToolUseProperty: INodeProperties = {
	displayName: ALLOW_TOOL_USE_LABEL,
	name: ALLOW_TOOL_USE,
	type: 'boolean',
	noDataExpression: true,
	default: false,
	description:
		'Whether the AI model using this tool may run this operation. A model never turns this on: it is a fixed switch that a person sets here, and an expression in it counts as off.',
};

/** A tool's share of a list: 10 items unless the model or the person asks for more, never more than 50. */
export const TOOL_DEFAULT_LIMIT = 10;
export const TOOL_MAX_LIMIT = 50;

export type ToolUsePermission = { allowed: true } | { allowed: false; cause: string };

/**
 * Whether a person allowed this operation in the tool node: only the boolean `true` stored in the
 * node counts. A string is an expression (e.g. `={{ $fromAI(...) }}` imported through the API):
 * a model or input data could set it.
 */
export function toolUsePermission(parameters: INodeParameters): ToolUsePermission {
	const setting = storedSetting(parameters, ALLOW_TOOL_USE);
	if (setting.kind === 'literal' && setting.value === true) return { allowed: true };
	if (
		setting.kind === 'expression' ||
		(setting.kind === 'literal' && typeof setting.value === 'string')
	) {
		return {
			allowed: false,
			cause: `'${ALLOW_TOOL_USE_LABEL}' holds an expression, not the switch itself; an expression counts as off, since a model or input data could set it.`,
		};
	}
	if (setting.kind === 'unset')
		return { allowed: false, cause: `'${ALLOW_TOOL_USE_LABEL}' is not set in this node.` };
	return { allowed: false, cause: `'${ALLOW_TOOL_USE_LABEL}' is off in this node.` };
}

/** How a list's tool description states its size. */
export const TOOL_LIMIT_TEXT = `Max Results caps the number of results (default ${TOOL_DEFAULT_LIMIT}, at most ${TOOL_MAX_LIMIT}).`;

/** How a protected operation's tool description tells the model it may be switched off. */
export function personMustAllowText(refusal: string): string {
	return `It runs only if a person switched on '${ALLOW_TOOL_USE_LABEL}' in this tool; otherwise it answers with an error and ${refusal}.`;
}
