import { HookContext, WebhookContext } from 'n8n-core';
import {
	deepCopy,
	isNodeClassInstance,
	NodeHelpers,
	UnexpectedError,
	Workflow,
} from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IHttpRequestMethods,
	INode,
	INodeExecutionData,
	INodeType,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	NodeExecutionHint,
	WebhookSetupMethodNames,
	WebhookType,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { randomUUID } from 'node:crypto';

import { createAdditionalData } from './additional-data';
import { nextExecutionId, runExecution } from './run-workflow';
import type { PublishedTrigger } from './published-trigger';
import { publishTrigger } from './published-trigger';
import { HarnessCredentialsHelper } from './credentials';
import { HarnessNodeTypes, placedVersion } from './node-types';
import type { NodeTypeMap } from './node-types';
import { ensureEngine } from './runtime';
import { recordingResponse, webhookRequest } from './webhook-http';
import type { Delivery, RecordedResponse } from './webhook-http';

export interface TriggerHarnessOptions {
	/** The trigger's type name (INode.type), looked up in `nodeTypes`. */
	nodeType: string;
	nodeTypes: NodeTypeMap;
	credentialTypes?: ICredentialType[];
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** Overrides for the trigger node: parameters, credentials, webhookId (default a UUID, as the editor assigns), name, typeVersion. */
	node?: Partial<INode>;
	/** n8n's production webhook base, WEBHOOK_URL + 'webhook'; default 'http://localhost:5678/webhook'. */
	webhookBaseUrl?: string;
	/** Initial node static data. */
	staticData?: IDataObject;
	/** Which of the node type's webhook descriptions to drive; default 'default'. */
	webhookName?: WebhookType;
	/** 'webhook' (default) for the published workflow, 'manual' for a test listen from the editor. */
	mode?: WorkflowExecuteMode;
	/** Default a new id per harness, so that no two harnesses share n8n's processed-data row. */
	workflowId?: string;
}

export interface DeliveryResult {
	/** What webhook() returned. */
	webhookResponse: IWebhookResponseData;
	/**
	 * The answer: what the node wrote to the response object when it ended the response itself, or
	 * what the execution sent through `sendResponse` (a webhook in response mode 'responseNode').
	 */
	response: RecordedResponse | undefined;
	/** Items the delivery started an execution with: what webhook() returned. */
	workflowData?: INodeExecutionData[][];
	/** What the trigger node passed on in that execution, when it has an execute() step. */
	passedOn?: INodeExecutionData[];
	/** The hints the trigger node gave in that execution. */
	hints?: NodeExecutionHint[];
}

export interface TriggerHarness {
	/** The production URL n8n gives this webhook: `${webhookBaseUrl}/${webhookId}/${path}`. */
	readonly webhookUrl: string;
	/** The live node static data (`getWorkflowStaticData('node')`); delete its keys to simulate a loss. */
	readonly staticData: IDataObject;
	readonly node: INode;
	readonly workflowId: string;
	checkExists(activation?: WorkflowActivateMode): Promise<boolean>;
	create(activation?: WorkflowActivateMode): Promise<boolean>;
	delete(activation?: WorkflowActivateMode): Promise<boolean>;
	/** n8n's activation: `create` only when `checkExists` says no. Returns whether it created. */
	activate(activation?: WorkflowActivateMode): Promise<boolean>;
	deliver(delivery: Delivery): Promise<DeliveryResult>;
	/**
	 * n8n's main publishing the workflow: trigger() in a TriggerContext (mode 'trigger'), whose
	 * emit runs each execution here and resolves its answer and its end as n8n does.
	 */
	publish(): Promise<PublishedTrigger>;
	/** The webhook step alone: the items n8n stores for an execution that a kill then cuts short. */
	receive(delivery: Delivery): Promise<DeliveryResult>;
	/**
	 * n8n killed and started again: `freshType` is the trigger loaded anew, with nothing of the
	 * killed process's memory; the workflow and what n8n stored stay.
	 */
	restart(freshType: INodeType): void;
	/**
	 * n8n runs a stored execution of the trigger's items again: a person's Retry (`mode` 'retry'),
	 * or n8n 1.x's queue mode running a dead worker's job again under its id (`mode` 'webhook').
	 * Returns what the trigger passed on.
	 */
	runAgain(
		workflowData: INodeExecutionData[][],
		options: {
			mode: WorkflowExecuteMode;
			executionId?: string;
			onAnswer?: (response: RecordedResponse) => void;
		},
	): Promise<INodeExecutionData[]>;
}

/**
 * Drives a webhook trigger the way an n8n main instance does, through n8n-core's HookContext and
 * WebhookContext. One Workflow object lives as long as the harness, so static data persists the
 * way n8n's saves after activation and after each delivery make it persist.
 */
let harnessCounter = 0;

export async function createTriggerHarness(
	options: TriggerHarnessOptions,
): Promise<TriggerHarness> {
	await ensureEngine();
	const nodeTypes = new HarnessNodeTypes(options.nodeTypes);
	const registered = nodeTypes.getByName(options.nodeType);
	const typeVersion =
		options.node?.typeVersion ??
		('currentVersion' in registered
			? registered.currentVersion
			: placedVersion(registered.description));
	let nodeType = nodeTypes.getByNameAndVersion(options.nodeType, typeVersion);
	const node: INode = {
		id: 'harness-trigger',
		name: nodeType.description.defaults.name ?? 'Trigger',
		position: [0, 0],
		parameters: {},
		webhookId: randomUUID(),
		...deepCopy(options.node ?? {}),
		type: options.nodeType,
		typeVersion,
	};
	const workflow = new Workflow({
		id: options.workflowId ?? `harness-workflow-${++harnessCounter}`,
		name: 'Harness workflow',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes,
		staticData: { [`node:${node.name}`]: options.staticData ?? {} },
		settings: { executionOrder: 'v1' },
	});
	const credentialsHelper = new HarnessCredentialsHelper(
		options.credentialTypes ?? [],
		options.credentials ?? {},
	);
	const baseData = createAdditionalData({
		credentialsHelper,
		webhookBaseUrl: options.webhookBaseUrl,
	});

	const webhookName = options.webhookName ?? 'default';
	const description = nodeType.description.webhooks?.find(
		(webhook) => webhook.name === webhookName,
	);
	if (description === undefined)
		throw new UnexpectedError(
			`Node type "${options.nodeType}" has no webhook named "${webhookName}"`,
		);

	// What n8n's WebhookService.getNodeWebhooks registers for the node.
	const webhookData = await workflow.expression.withIsolate((): Promise<IWebhookData> => {
		const value = (field: string | boolean | undefined, fallback?: string | boolean) =>
			workflow.expression.getSimpleParameterValue(node, field, 'internal', {}, undefined, fallback);
		const nodePath = String(value(description.path)).replace(/^\/|\/$/g, '');
		const path = NodeHelpers.getNodeWebhookPath(
			workflow.id,
			node,
			nodePath,
			value(description.isFullPath, false) === true,
			value(description.restartWebhook, false) === true,
		);
		return Promise.resolve({
			httpMethod: String(value(description.httpMethod, 'GET')) as IHttpRequestMethods,
			node: node.name,
			path,
			webhookDescription: description,
			workflowId: workflow.id,
			workflowExecuteAdditionalData: baseData,
			// n8n keeps the id apart only for paths with :parameters.
			webhookId: /(^|\/):/.test(path) ? node.webhookId : undefined,
		});
	});

	// ActiveWorkflowManager runs checkExists/create in 'trigger' mode and clearWebhooks runs
	// delete in 'internal' mode with activation 'update'.
	const runSetupMethod = async (
		method: WebhookSetupMethodNames,
		mode: WorkflowExecuteMode,
		activation: WorkflowActivateMode,
	): Promise<boolean> => {
		const setupMethod = nodeType.webhookMethods?.[description.name]?.[method];
		if (setupMethod === undefined)
			throw new UnexpectedError(
				`Node type "${options.nodeType}" has no webhookMethods.${webhookName}.${method}`,
			);
		const context = new HookContext(workflow, node, baseData, mode, activation, webhookData);
		return await workflow.expression.withIsolate(async () => await setupMethod.call(context));
	};

	const webhookUrl = await workflow.expression.withIsolate(() =>
		Promise.resolve(
			new HookContext(
				workflow,
				node,
				baseData,
				'trigger',
				'activate',
				webhookData,
			).getNodeWebhookUrl(description.name),
		),
	);
	if (webhookUrl === undefined) throw new UnexpectedError('n8n-core computed no webhook URL');

	const harness: TriggerHarness = {
		webhookUrl,
		get staticData() {
			return workflow.getStaticData('node', node);
		},
		node,
		workflowId: workflow.id,
		checkExists: async (activation = 'activate') =>
			await runSetupMethod('checkExists', 'trigger', activation),
		create: async (activation = 'activate') =>
			await runSetupMethod('create', 'trigger', activation),
		delete: async (activation = 'update') => await runSetupMethod('delete', 'internal', activation),
		activate: async (activation = 'activate') => {
			if (await harness.checkExists(activation)) return false;
			await harness.create(activation);
			return true;
		},
		deliver: async (delivery) =>
			await deliver(
				{ workflow, node, nodeType, webhookData, baseData, mode: options.mode ?? 'webhook' },
				delivery,
			),
		receive: async (delivery) =>
			await deliver(
				{ workflow, node, nodeType, webhookData, baseData, mode: options.mode ?? 'webhook' },
				delivery,
				{ execute: false },
			),
		publish: async () => await publishTrigger(workflow, node, nodeType, baseData),
		restart: (freshType) => {
			nodeTypes.reload(options.nodeType, freshType);
			nodeType = nodeTypes.getByNameAndVersion(options.nodeType, typeVersion);
		},
		runAgain: async (workflowData, { mode, executionId, onAnswer }) =>
			await runExecution(
				workflow,
				node,
				baseData,
				mode,
				workflowData,
				executionId ?? nextExecutionId(),
				onAnswer ?? (() => undefined),
			),
	};
	return harness;
}

interface DeliveryTarget {
	workflow: Workflow;
	node: INode;
	nodeType: INodeType;
	webhookData: IWebhookData;
	baseData: IWorkflowExecuteAdditionalData;
	mode: WorkflowExecuteMode;
}

/** The webhook step, then (`execute`, default true) the execution n8n starts with its items. */
async function deliver(
	{ workflow, node, nodeType, webhookData, baseData, mode }: DeliveryTarget,
	delivery: Delivery,
	{ execute = true }: { execute?: boolean } = {},
): Promise<DeliveryResult> {
	const recorder = recordingResponse();
	// As n8n's webhook helpers do: the request and response travel in the additional data.
	const additionalData: IWorkflowExecuteAdditionalData = {
		...baseData,
		httpRequest: webhookRequest(webhookData, delivery),
		httpResponse: recorder.response,
	};
	// A production webhook runs in 'webhook' mode without run data; n8n passes null.
	const context = new WebhookContext(workflow, node, additionalData, mode, webhookData, [], null);
	const callWebhook = (): Promise<IWebhookResponseData> => {
		// Class-based nodes (n8n-workflow's Node) get the context as argument, as WebhookService does.
		if (isNodeClassInstance(nodeType) && nodeType.webhook) return nodeType.webhook(context);
		if (nodeType.webhook) return nodeType.webhook.call(context);
		throw new UnexpectedError('The node has no webhook method');
	};
	const webhookResponse = await workflow.expression.withIsolate(callWebhook);
	const result: DeliveryResult = {
		webhookResponse,
		response: recorder.recorded(),
		workflowData: webhookResponse.workflowData,
	};
	if (result.response) delivery.onAnswer?.(result.response);
	if (execute && webhookResponse.workflowData !== undefined && nodeType.execute !== undefined) {
		const execution = await runExecution(
			workflow,
			node,
			baseData,
			mode,
			webhookResponse.workflowData,
			delivery.executionId ?? nextExecutionId(),
			(response) => {
				result.response ??= response;
				delivery.onAnswer?.(response);
			},
			delivery.ends,
			(result.hints = []),
		);
		result.passedOn = execution;
	}
	return result;
}
