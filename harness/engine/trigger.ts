import { HookContext, TriggerContext, WebhookContext, WorkflowExecute } from 'n8n-core';
import {
	createRunExecutionData,
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
	IExecuteResponsePromiseData,
	IHttpRequestMethods,
	IRun,
	ITriggerFunctions,
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
import { errorOf, lifecycleHooks, nextExecutionId, outputOf } from './run-workflow';
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

/** The trigger's trigger() as n8n's main calls it at publishing, with every execution it emitted. */
export interface PublishedTrigger {
	/** What the trigger node passed on in each execution that ended well, in end order. */
	readonly runs: INodeExecutionData[][];
	/** Errors of executions that failed, and those saved as failed executions (`saveFailedExecution`). */
	readonly failed: Error[];
	/** Unpublishing: n8n calls the closeFunction trigger() returned, if any. */
	close(): Promise<void>;
	/** Whether trigger() returned a closeFunction: something runs until unpublished. */
	readonly listens: boolean;
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
		publish: async () => await publish(workflow, node, nodeType, baseData),
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

async function publish(
	workflow: Workflow,
	node: INode,
	nodeType: INodeType,
	baseData: IWorkflowExecuteAdditionalData,
): Promise<PublishedTrigger> {
	const runs: INodeExecutionData[][] = [];
	const failed: Error[] = [];
	// n8n resolves a run's end with the run; one that failed in a node names that node.
	const endedAs = (status: IRun['status']) =>
		({ status, data: { resultData: { runData: {}, lastNodeExecuted: node.name } } }) as IRun;
	const emit: ITriggerFunctions['emit'] = (data, answer, ended) => {
		const relay = (response: RecordedResponse) =>
			answer?.resolve(response as IExecuteResponsePromiseData);
		void runExecution(workflow, node, baseData, 'trigger', data, nextExecutionId(), relay).then(
			(passedOn) => {
				runs.push(passedOn);
				ended?.resolve(endedAs('success'));
			},
			(error: unknown) => {
				failed.push(error as Error);
				answer?.reject(error as Error);
				ended?.resolve(endedAs('error'));
			},
		);
	};
	const context = new TriggerContext(
		workflow,
		node,
		baseData,
		'trigger',
		'activate',
		emit,
		(error) => void failed.push(error),
		(error) => void failed.push(error),
	);
	const response = await workflow.expression.withIsolate(async () => {
		if (nodeType.trigger === undefined) throw new UnexpectedError('The node has no trigger method');
		return await nodeType.trigger.call(context);
	});
	return {
		runs,
		failed,
		listens: response?.closeFunction !== undefined,
		close: async () => await response?.closeFunction?.(),
	};
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

/**
 * What n8n does with a delivery that returned items: an execution whose first step is the trigger
 * node with those items (n8n-core calls a webhook node's execute() when it has one), and whose
 * `sendResponse` hook answers the waiting request. It ends once `ends` (when given) settles.
 */
export async function runExecution(
	workflow: Workflow,
	node: INode,
	baseData: IWorkflowExecuteAdditionalData,
	mode: WorkflowExecuteMode,
	workflowData: INodeExecutionData[][],
	executionId: string,
	onAnswer: (response: RecordedResponse) => void,
	ends?: Promise<unknown>,
	/** Where the trigger node's hints go, when given. */
	hints?: NodeExecutionHint[],
): Promise<INodeExecutionData[]> {
	const hooks = lifecycleHooks(mode, executionId, workflow);
	// Added first, so the nodes' own end handlers run after it.
	if (ends) hooks.addHandler('workflowExecuteAfter', async () => void (await ends));
	hooks.addHandler('sendResponse', (sent: IExecuteResponsePromiseData) => {
		const full = sent as { statusCode?: number; headers?: Record<string, string>; body?: unknown };
		onAnswer({ statusCode: full.statusCode ?? 200, headers: full.headers ?? {}, body: full.body });
	});
	const runExecutionData = createRunExecutionData({
		executionData: { nodeExecutionStack: [{ node, data: { main: workflowData }, source: null }] },
	});
	const run = await new WorkflowExecute(
		{ ...baseData, executionId, hooks },
		mode,
		runExecutionData,
	).processRunExecutionData(workflow);
	hints?.push(
		...(run.data.resultData.runData[node.name] ?? []).flatMap((task) => task.hints ?? []),
	);
	const error = errorOf(run, node.name);
	if (error) throw error;
	return outputOf(run, node.name);
}
