import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import { createRunExecutionData, deepCopy, UnexpectedError, Workflow } from 'n8n-workflow';
import type {
	ExecutionError,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IConnections,
	IDataObject,
	IExecuteResponsePromiseData,
	INode,
	INodeExecutionData,
	IPinData,
	IRun,
	ITaskData,
	IWorkflowExecuteAdditionalData,
	IWorkflowSettings,
	NodeExecutionHint,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { createAdditionalData } from './additional-data';
import { HarnessCredentialsHelper } from './credentials';
import { HarnessNodeTypes, START_NODE_TYPE, startNodeType } from './node-types';
import type { NodeTypeMap } from './node-types';
import { ensureEngine } from './runtime';
import type { RecordedResponse } from './webhook-http';

export interface RunWorkflowOptions {
	nodes: INode[];
	connections: IConnections;
	/** Keyed by INode.type, e.g. 'n8n-nodes-svc.svc'. The start node type is added by the harness. */
	nodeTypes: NodeTypeMap;
	credentialTypes?: ICredentialType[];
	/** Decrypted credential data by credential type name; nodes reference them through INode.credentials. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** What the start node (START_NODE_TYPE) emits; default one empty item, like the Manual Trigger. */
	items?: INodeExecutionData[];
	/** Node to start from; default the START_NODE_TYPE node, else n8n's own choice. */
	startNodeName?: string;
	/** Default: a new numeric id per run, as n8n's execution ids look. */
	executionId?: string;
	/** Workflow static data (`{ 'node:<name>': {...}, global: {...} }`), updated in place: pass the same object again to keep it. */
	staticData?: IDataObject;
	pinData?: IPinData;
	/** Default 'manual', as n8n's own node test harness. */
	mode?: WorkflowExecuteMode;
	/** Default `{ executionOrder: 'v1' }`, what n8n gives new workflows. */
	settings?: IWorkflowSettings;
	webhookBaseUrl?: string;
}

let executionCounter = 0;

/** A new numeric id per execution in this process, as n8n's execution ids look. */
export function nextExecutionId(): string {
	return String(++executionCounter);
}

/** WorkflowExecute refuses to run without lifecycle hooks; n8n's own handlers persist executions. */
export function lifecycleHooks(
	mode: WorkflowExecuteMode,
	executionId: string,
	workflow: Workflow,
): ExecutionLifecycleHooks {
	const now = new Date();
	return new ExecutionLifecycleHooks(mode, executionId, {
		id: workflow.id,
		name: workflow.name ?? '',
		active: workflow.active,
		isArchived: false,
		activeVersionId: null,
		createdAt: now,
		updatedAt: now,
		nodes: Object.values(workflow.nodes),
		connections: workflow.connectionsBySourceNode,
	});
}

/** Runs the workflow in n8n-core's WorkflowExecute, as an n8n instance would (minus persistence). */
export async function runWorkflow(options: RunWorkflowOptions): Promise<IRun> {
	await ensureEngine();
	const executionId = options.executionId ?? nextExecutionId();
	const mode = options.mode ?? 'manual';
	// The Workflow constructor writes parameter defaults into the nodes: keep the caller's intact.
	const nodes = deepCopy(options.nodes);
	const workflow = new Workflow({
		id: 'harness-workflow',
		name: 'Harness workflow',
		nodes,
		connections: options.connections,
		active: false,
		nodeTypes: new HarnessNodeTypes({
			...options.nodeTypes,
			[START_NODE_TYPE]: startNodeType(options.items ?? [{ json: {} }]),
		}),
		staticData: options.staticData,
		settings: options.settings ?? { executionOrder: 'v1' },
		pinData: options.pinData,
	});

	const startNodeName =
		options.startNodeName ?? nodes.find((node) => node.type === START_NODE_TYPE)?.name;
	const startNode =
		startNodeName === undefined ? undefined : (workflow.getNode(startNodeName) ?? undefined);
	if (startNodeName !== undefined && startNode === undefined)
		throw new UnexpectedError(`No node named "${startNodeName}"`);

	const hooks = lifecycleHooks(mode, executionId, workflow);
	const credentialsHelper = new HarnessCredentialsHelper(
		options.credentialTypes ?? [],
		options.credentials ?? {},
	);
	const additionalData = createAdditionalData({
		credentialsHelper,
		executionId,
		hooks,
		webhookBaseUrl: options.webhookBaseUrl,
	});
	return await new WorkflowExecute(additionalData, mode).run({
		workflow,
		startNode,
		pinData: options.pinData,
	});
}

function lastTask(run: IRun, nodeName: string): ITaskData {
	const tasks = run.data.resultData.runData[nodeName];
	if (tasks === undefined || tasks.length === 0) {
		const ran = Object.keys(run.data.resultData.runData).join(', ');
		const failure = run.data.resultData.error?.message;
		throw new UnexpectedError(
			`Node "${nodeName}" did not run (ran: ${ran}${failure ? `; workflow error: ${failure}` : ''})`,
		);
	}
	return tasks[tasks.length - 1];
}

/** Items on a node's main output (first output by default) in its last run. */
export function outputOf(run: IRun, nodeName: string, outputIndex = 0): INodeExecutionData[] {
	return lastTask(run, nodeName).data?.main[outputIndex] ?? [];
}

/** The error a node stopped with in its last run, if any (not set when it continued on fail). */
export function errorOf(run: IRun, nodeName: string): ExecutionError | undefined {
	return lastTask(run, nodeName).error;
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
