import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
	NodeExecutionHint,
} from 'n8n-workflow';
import { NodeError, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { runBounded } from '../shared/pool';
import { asText } from '../shared/text';
import {
	deriveIdempotencyKey,
	idempotencyKeyFromContent,
	idempotencyKeyFromText,
	isUuid,
	LEGACY_KEY_HINT,
	RequestGate,
	SvcClient,
	userError,
} from '../transport';
import { account } from './account';
import { campaign } from './campaign';
import { conversation } from './conversation';
import { lead } from './lead';
import { ItemParameters, storedSetting } from './itemParameters';
import {
	DEFAULT_CONCURRENCY,
	MAX_CONCURRENCY,
	requestOptions,
	SEND_DURING_EVALUATIONS,
} from './parameters';
import {
	allowToolUseProperty,
	answersMcpClient,
	runsAsTool,
	toolOnly,
	toolUsePermission,
	withFixInMessage,
} from './tool';
import type { Operation, OperationContext, Resource } from './types';
import { webhookSubscription } from './webhookSubscription';

export const resources: Resource[] = [lead, conversation, campaign, account, webhookSubscription];

/** The option n8n adds to the resource and operation lists of a node whose credential can authenticate its HTTP Request node. */
const CUSTOM_API_CALL = '__CUSTOM_API_CALL__';

/**
 * n8n's own Custom API Call, ending each operation list. n8n adds it without an `action`, and its
 * editor then names the node from the raw value ("__CUSTOM_API_CALL__ lead"); n8n adds none where
 * the list already ends with one of that name. Same value, so n8n's editor still hides the other
 * parameters and shows its notice to use the HTTP Request node.
 */
const CUSTOM_API_CALL_OPTION: INodePropertyOptions = {
	name: 'Custom API Call',
	value: CUSTOM_API_CALL,
	action: 'Custom API Call',
	description:
		'Runs in an HTTP Request node: set Authentication to Predefined Credential Type, then Svc API',
};

/** What a resource's Operation list offers: its operations, then Custom API Call. */
export function operationOptions(resource: Resource): INodePropertyOptions[] {
	return [...resource.operations.map((operation) => operation.option), CUSTOM_API_CALL_OPTION];
}

/** The node's parameters: resource, one operation selector per resource, then each operation's fields. */
export function buildProperties(): INodeProperties[] {
	const properties: INodeProperties[] = [
		{
			displayName: 'Resource',
			name: 'resource',
			type: 'options',
			noDataExpression: true,
			options: resources.map((resource) => resource.option),
			default: 'lead',
		},
	];
	for (const resource of resources) {
		const resourceName = String(resource.option.value);
		properties.push({
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: [resourceName] } },
			options: operationOptions(resource),
			default: String(resource.operations[0].option.value),
		});
		for (const operation of resource.operations) {
			const show = {
				show: { resource: [resourceName], operation: [String(operation.option.value)] },
			};
			const options: INodeProperties = {
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [...(operation.options ?? []), ...requestOptions],
			};
			properties.push(
				...updateDisplayOptions(show, [
					...toolProperties(operation),
					...operation.properties,
					options,
				]),
			);
		}
	}
	return properties;
}

/**
 * What only the tool copy shows for an operation. A `toolDescription` parameter of the node's own
 * keeps n8n from adding its "Tool Description: Set Automatically" pair, whose automatic text is
 * the operation's action and the node's name ("Dispatch a campaign in Svc"): n8n gives the model
 * this parameter's value instead (NodeHelpers.getToolDescriptionForNode).
 */
function toolProperties(operation: Operation): INodeProperties[] {
	const { toolDescription } = operation;
	const description: INodeProperties = {
		displayName: 'Tool Description',
		name: 'toolDescription',
		type: 'string',
		typeOptions: { rows: 4 },
		default: toolDescription,
		description:
			'What the AI model is told about this tool: what it does, what to pass and what comes back. Written for this operation; edit it to fit your agent.',
	};
	return toolOnly(
		operation.needsPersonAsTool ? [description, allowToolUseProperty] : [description],
	);
}

function findOperation(
	resourceName: string,
	operationName: string,
): { resource: Resource; operation: Operation } | undefined {
	const resource = resources.find((entry) => entry.option.value === resourceName);
	const operation = resource?.operations.find((entry) => entry.option.value === operationName);
	return resource && operation ? { resource, operation } : undefined;
}

/**
 * As an AI tool, an operation a model must not start alone runs only when a person switched on
 * "Allow Use by AI" in the node. Read from the node as stored, never resolved: an expression there
 * (`$fromAI(...)`) counts as off. Returns the refusal, or undefined when allowed.
 */
function toolRefusal(
	ctx: IExecuteFunctions,
	resource: Resource,
	operation: Operation,
): NodeOperationError | undefined {
	const permission = toolUsePermission(ctx.getNode().parameters);
	if (permission.allowed) return undefined;
	const name = `${resource.option.name} ${operation.option.name}`;
	return new NodeOperationError(
		ctx.getNode(),
		`${name} is not allowed for AI use in this tool: a person must switch on 'Allow Use by AI' in the node; a model cannot`,
		{
			level: 'warning',
			description: `${permission.cause} Nothing was sent to the service. To let the model ${operation.option.action.toLowerCase()}, a person opens this tool node in the editor and switches on 'Allow Use by AI'.`,
		},
	);
}

/**
 * In an n8n evaluation run (mode 'evaluation', both majors), an operation that messages real leads
 * sends nothing unless a person switched on "Send During Evaluations": evaluations replay a data
 * set many times. Returns what the node answers instead, or undefined when it may send.
 */
function heldForEvaluation(
	ctx: IExecuteFunctions,
	resource: Resource,
	operation: Operation,
): { sent: false; reason: 'evaluation'; message: string } | undefined {
	if (!operation.messagesLeads || ctx.getMode() !== 'evaluation') return undefined;
	const allowed = storedSetting(ctx.getNode().parameters, `options.${SEND_DURING_EVALUATIONS}`);
	if (allowed.kind === 'literal' && allowed.value === true) return undefined;
	return {
		sent: false,
		reason: 'evaluation',
		message: `Not sent: n8n is running this workflow as an evaluation, and ${resource.option.name} ${operation.option.name} messages real leads. Nothing reached the service. To send during evaluations, a person switches on 'Send During Evaluations' in the node's options.`,
	};
}

/**
 * A failed item as output: what Continue On Fail gives, and what a tool answers an AI Agent. n8n's
 * AI Agent passes a thrown error's message alone to the model (2.41) or ends the whole run (1.123),
 * so there the tool answers with the cause and the fix instead of throwing. An MCP client gets the
 * failure thrown instead (answersMcpClient).
 */
function errorItem(error: NodeError, itemIndex: number): INodeExecutionData {
	return {
		json: {
			error: error.message,
			...(error.description ? { description: error.description } : {}),
		},
		pairedItem: { item: itemIndex },
	};
}

/** The same failure as every input item's answer: for what fails before any item runs. */
function everyItemFailed(items: INodeExecutionData[], error: NodeError): INodeExecutionData[][] {
	return [items.map((_item, itemIndex) => errorItem(error, itemIndex))];
}

function clampConcurrency(value: unknown): number {
	const number = Math.floor(Number(value));
	if (!Number.isFinite(number) || number < 1) return DEFAULT_CONCURRENCY;
	return Math.min(number, MAX_CONCURRENCY);
}

function itemsOf(result: IDataObject | IDataObject[], itemIndex: number): INodeExecutionData[] {
	const list = Array.isArray(result) ? result : [result];
	return list.map((json) => ({ json, pairedItem: { item: itemIndex } }));
}

/** The node's execute(): every item through its operation, a bounded number at a time. */
export async function executeOperations(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resourceName = this.getNodeParameter('resource', 0);
	// With Custom API Call as the resource there is no operation to read.
	const operationName =
		resourceName === CUSTOM_API_CALL ? CUSTOM_API_CALL : this.getNodeParameter('operation', 0);
	if (operationName === CUSTOM_API_CALL) {
		throw userError(
			this.getNode(),
			"Custom API Call runs in n8n's HTTP Request node, not in the Svc node",
			{
				description:
					"Add an HTTP Request node, set Authentication to Predefined Credential Type and Credential Type to Svc API, pick your Svc credential, and enter the endpoint's full URL: the credential's Base URL followed by the path, such as /v1/me. Here, pick one of the listed operations.",
			},
		);
	}
	const found = findOperation(resourceName, operationName);
	if (!found) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operationName}" of resource "${resourceName}" is not supported`,
		);
	}
	const { operation } = found;
	const asTool = runsAsTool(this.getNode());
	// Thrown, so that n8n's MCP Server Trigger answers the client `isError: true`.
	const toMcpClient = asTool && answersMcpClient(this);
	const refusal =
		asTool && operation.needsPersonAsTool
			? toolRefusal(this, found.resource, operation)
			: undefined;
	if (refusal) {
		if (toMcpClient) throw withFixInMessage(refusal);
		return everyItemFailed(items, refusal);
	}
	const held = heldForEvaluation(this, found.resource, operation);
	if (held) {
		this.addExecutionHints({ message: held.message, location: 'outputPane' });
		return [
			items.map((_item, itemIndex) => ({ json: { ...held }, pairedItem: { item: itemIndex } })),
		];
	}
	const options = this.getNodeParameter('options', 0, {});
	const gate = new RequestGate({
		maxRequestsPerSecond: Number(options.maxRequestsPerSecond ?? 0) || undefined,
	});
	const timeoutMs = Math.max(1, Number(options.timeoutSeconds ?? 30)) * 1000;
	let client: SvcClient;
	try {
		client = await SvcClient.connect(this, { gate, timeoutMs });
	} catch (caught) {
		const error =
			caught instanceof NodeError
				? caught
				: new NodeOperationError(this.getNode(), caught instanceof Error ? caught : String(caught));
		// A credential the node refuses (its message holds no key) answers the model too.
		if (toMcpClient) throw withFixInMessage(error);
		if (!asTool) throw error;
		return everyItemFailed(items, error);
	}

	const executionId = this.getExecutionId() ?? '';
	const nodeId = this.getNode().id ?? this.getNode().name;
	const runIndex = operation.writes ? Number(this.getWorkflowDataProxy(0).$runIndex ?? 0) : 0;
	const hints = new Set<string>();
	const parameters = new ItemParameters(this);
	if (client.legacyKey) hints.add(LEGACY_KEY_HINT);

	const results: INodeExecutionData[][] = new Array<INodeExecutionData[]>(items.length);
	await runBounded(items.length, clampConcurrency(options.concurrency), async (itemIndex) => {
		const context: OperationContext = {
			ctx: this,
			client,
			itemIndex,
			asTool,
			parameter: (name, fallback, parameterOptions) =>
				parameters.read(name, itemIndex, fallback, parameterOptions),
			writeKey: (operationKey, body, scope = 'run') => {
				const own = asText(
					parameters.read<unknown>('options.idempotencyKey', itemIndex, ''),
				).trim();
				if (own !== '')
					return {
						value: isUuid(own) ? own : idempotencyKeyFromText(operationKey, own),
						from: 'option',
					};
				if (scope === 'content')
					return { value: idempotencyKeyFromContent(operationKey, body), from: scope };
				const value = deriveIdempotencyKey({
					executionId,
					nodeId,
					runIndex,
					itemIndex,
					operation: operationKey,
					body,
				});
				return { value, from: scope };
			},
			hint: (message) => hints.add(message),
		};
		try {
			results[itemIndex] = itemsOf(await operation.execute(context), itemIndex);
		} catch (caught) {
			const error = asNodeError(this, caught, itemIndex, client);
			if (toMcpClient) throw withFixInMessage(error);
			if (!asTool && !this.continueOnFail()) throw error;
			results[itemIndex] = [errorItem(error, itemIndex)];
		}
	});
	if (hints.size > 0) {
		this.addExecutionHints(
			...[...hints].map((message): NodeExecutionHint => ({ message, location: 'outputPane' })),
		);
	}
	return [results.flat()];
}

/** Every error leaves the node as an n8n error that names its item and holds no secret. */
function asNodeError(
	ctx: IExecuteFunctions,
	caught: unknown,
	itemIndex: number,
	client: SvcClient,
): NodeError {
	if (caught instanceof NodeError) {
		caught.message = client.redactor.text(caught.message);
		if (caught.description) caught.description = client.redactor.text(caught.description);
		caught.context.itemIndex ??= itemIndex;
		return caught;
	}
	const message = caught instanceof Error ? caught.message : String(caught);
	return new NodeOperationError(ctx.getNode(), client.redactor.text(message), { itemIndex });
}
