import { PollContext } from 'n8n-core';
import {
	createRunExecutionData,
	deepCopy,
	sleep,
	Workflow,
	WorkflowOperationError,
} from 'n8n-workflow';
import type {
	ExecutionError,
	IPollFunctions,
	IRun,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IExecuteResponsePromiseData,
	INode,
	INodeExecutionData,
	INodeType,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { createAdditionalData } from './additional-data';
import { HarnessCredentialsHelper } from './credentials';
import { HarnessNodeTypes } from './node-types';
import type { NodeTypeMap } from './node-types';
import { nextExecutionId, runExecution } from './run-workflow';
import { ensureEngine } from './runtime';

export interface PollHarnessOptions {
	nodeType: string;
	nodeTypes: NodeTypeMap;
	credentialTypes?: ICredentialType[];
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	node: Omit<INode, 'type' | 'typeVersion' | 'position'>;
	/** Share it with another harness to put both triggers in one workflow (one processed-data row). */
	workflowId: string;
	/**
	 * n8n 2.41's durable poll cursors, as its code does them: the node's static data is a stored
	 * cursor, each poll works on a copy of it, and the copy is stored with each execution the poll
	 * starts and, for a scheduled poll (`durableTick`), when it returns. The publish's test poll
	 * stores it only with an execution.
	 */
	durableCursors?: boolean;
}

/** What one poll did: what poll() returned, and each execution it started, by what it passed on. */
export interface PollResult {
	returned: INodeExecutionData[][] | null;
	/** Per started execution, in start order: the trigger's output, or the error it ended with. */
	executions: Array<INodeExecutionData[] | Error>;
	/** Errors the poll reported to n8n without throwing (`__emitError`): each a failed execution in n8n's list. */
	reported: Error[];
	/** The most executions started and not ended at one time during the poll. */
	peakUnfinished: number;
	/** What each run that ended without its data (`lostRuns`) had passed on, in end order. */
	lost: INodeExecutionData[][];
}

export interface PollHarness {
	/** The node's static data as the poll sees it now. */
	readonly staticData: IDataObject;
	/**
	 * What n8n has stored of the workflow's static data, as its code does: when the poll starts an
	 * execution and after the poll at publishing (durable cursors: the cursor).
	 */
	readonly storedStaticData: IDataObject;
	/** Executions the poll under way has started so far. */
	readonly started: number;
	/**
	 * One poll, as n8n's poller calls it, waiting for every execution it started. `executions:
	 * 'notStored'` fails each execution before it starts, as n8n does when it cannot store one
	 * (n8n rejects the poll's answer promise). `answersHeldUntil` keeps each execution's answer
	 * from the poll until it settles, as a busy n8n would. `durableTick` runs the poll as n8n 2.41's
	 * durable scheduler does: in a context of its own, with that scheduler's budget. `workMs`: each
	 * execution ends that long after its trigger step, as with nodes after the trigger.
	 * `onWorkers`: each execution answers as one run by a queue-mode worker does (not in the
	 * process that polled). `startsHeldUntil`: n8n starts the executions only then (a busy n8n).
	 * `lostRuns`: the first that many executions end after their trigger step as n8n 2.x ends the
	 * runs of a queue-mode worker that died, with an error of its own and none of their data; what
	 * they passed on is in `lost`, not in `executions` (an Error there). The poll waits for the
	 * executions started as each ends too. `unansweredRuns`: the first that many executions never
	 * give the poll their trigger step's answer, as n8n 1.x relays none for a queue job a worker ran
	 * again: the poll gets n8n's own answer as the job finishes (`{}`, or a 500 "Workflow execution
	 * failed" when the step failed), and then the stored run, marked crashed, whose trigger step
	 * holds what it passed on or its error.
	 */
	poll(options?: {
		lostRuns?: number;
		unansweredRuns?: number;
		onWorkers?: boolean;
		startsHeldUntil?: Promise<void>;
		executions?: 'run' | 'notStored';
		answersHeldUntil?: Promise<void>;
		workMs?: number;
		durableTick?: { budgetMs: number };
	}): Promise<PollResult>;
	/**
	 * Unpublished and published again in this process: n8n loads the workflow's stored static data
	 * and builds a new poll context, whose first poll is the test poll.
	 */
	activate(activation?: WorkflowActivateMode): void;
	/**
	 * n8n started again (killed and restarted): `nodeType` is the trigger loaded anew, with nothing
	 * of this process's memory; the workflow is activated from what n8n stored.
	 */
	restart(nodeType: INodeType): void;
	/** A person's Retry of an execution that started with `items`: what the trigger passes on. */
	retry(items: INodeExecutionData[]): Promise<INodeExecutionData[]>;
	/** The editor's Fetch Test Event: the trigger run in manual mode, and what it outputs. */
	fetchTestEvent(): Promise<INodeExecutionData[]>;
}

/**
 * What n8n's main answers for a queue job as it finishes when no answer of the trigger step was
 * relayed (scaling.service, 'job-finished').
 */
function jobFinishedAnswer(outcome: INodeExecutionData[] | Error): IExecuteResponsePromiseData {
	return Array.isArray(outcome)
		? {}
		: { body: { message: 'Workflow execution failed' }, statusCode: 500 };
}

/** A run as n8n stores it once ended marked crashed after its trigger step (`outcome`: that step's output or error). */
function runCrashedAfterTrigger(node: INode, outcome: INodeExecutionData[] | Error): IRun {
	// n8n stores the step's error as the step ended with it, its context included.
	const step = Array.isArray(outcome)
		? { data: { main: [outcome] } }
		: { error: outcome as ExecutionError };
	return {
		data: createRunExecutionData({
			resultData: {
				runData: {
					[node.name]: [{ startTime: 0, executionTime: 0, executionIndex: 0, source: [], ...step }],
				},
				lastNodeExecuted: node.name,
			},
		}),
		finished: false,
		mode: 'trigger',
		startedAt: new Date(),
		stoppedAt: new Date(),
		status: 'crashed',
		storedAt: 'db',
	};
}

/**
 * A run as n8n 2.41 ends one whose queue-mode worker died (workflow-runner.js, processError): an
 * error of n8n's own, no run data, no last node.
 */
function runEndedWithoutData(executionId: string): IRun {
	return {
		data: createRunExecutionData({
			resultData: {
				runData: {},
				error: new WorkflowOperationError(`Execution ${executionId} stalled: its worker stopped`),
			},
		}),
		finished: false,
		mode: 'trigger',
		startedAt: new Date(),
		stoppedAt: new Date(),
		status: 'error',
		storedAt: 'db',
	};
}

/**
 * Drives a poll trigger the way n8n's active-workflow manager does: one PollContext per
 * activation, reused by every poll, whose `__emit` starts an execution with the trigger as its
 * first node (its execute() step) and relays that execution's `sendResponse` to the poll.
 */
export async function createPollHarness(options: PollHarnessOptions): Promise<PollHarness> {
	await ensureEngine();
	const nodeTypes = new HarnessNodeTypes(options.nodeTypes);
	const node: INode = {
		...deepCopy(options.node),
		type: options.nodeType,
		typeVersion: 1,
		position: [0, 0],
	};
	const loadWorkflow = (types: HarnessNodeTypes, staticData: IDataObject): Workflow =>
		new Workflow({
			id: options.workflowId,
			name: 'Harness workflow',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes: types,
			staticData: deepCopy(staticData),
			settings: { executionOrder: 'v1' },
		});
	let workflow = loadWorkflow(nodeTypes, {});
	// What n8n stored of the workflow's static data (without durable cursors).
	let storedWorkflowData: IDataObject = {};
	const storeStaticData = () => {
		const data = workflow.staticData;
		if (data.__dataChanged !== true) return;
		storedWorkflowData = deepCopy(data);
		data.__dataChanged = false;
	};
	const baseData = createAdditionalData({
		credentialsHelper: new HarnessCredentialsHelper(
			options.credentialTypes ?? [],
			options.credentials ?? {},
		),
	});
	let nodeType = nodeTypes.getByNameAndVersion(options.nodeType, 1);
	let started: Array<Promise<INodeExecutionData[] | Error>> = [];
	let store = true;
	let answersHeldUntil: Promise<void> = Promise.resolve();
	let workMs = 0;
	let onWorkers = false;
	let startsHeldUntil: Promise<void> = Promise.resolve();
	let lostRuns = 0;
	let unansweredRuns = 0;
	let lostPassed: INodeExecutionData[][] = [];
	let reported: Error[] = [];
	const emitError: IPollFunctions['__emitError'] = (error) => {
		reported.push(error);
	};
	let unfinished = 0;
	let peakUnfinished = 0;
	// Durable cursors: the stored cursor, and the copy the poll under way works on.
	let storedCursor: IDataObject = {};
	let pollCursor: IDataObject = {};
	const storeCursor = () => {
		if (options.durableCursors) storedCursor = deepCopy(pollCursor);
	};
	const emit: IPollFunctions['__emit'] = (data, answer, ended) => {
		storeCursor();
		storeStaticData();
		if (!store) {
			const error = new Error('The execution could not be stored');
			answer?.reject(error);
			ended?.reject(error);
			return;
		}
		peakUnfinished = Math.max(peakUnfinished, ++unfinished);
		const executionId = nextExecutionId();
		const lost = lostRuns > 0;
		if (lost) lostRuns--;
		const unanswered = unansweredRuns > 0;
		if (unanswered) unansweredRuns--;
		const relay = (response: unknown) => {
			if (unanswered) return;
			const relayed = response as IExecuteResponsePromiseData;
			const body = relayed.body as IDataObject | undefined;
			void answersHeldUntil.then(() =>
				answer?.resolve(onWorkers ? { ...relayed, body: { ...body, here: false } } : relayed),
			);
		};
		started.push(
			startsHeldUntil
				.then(
					async () =>
						await runExecution(workflow, node, baseData, 'trigger', data, executionId, relay),
				)
				.catch((error: unknown) => error as Error)
				.then(async (outcome) => {
					if (workMs > 0) await sleep(workMs);
					unfinished--;
					if (!lost) {
						if (unanswered) answer?.resolve(jobFinishedAnswer(outcome));
						ended?.resolve(unanswered ? runCrashedAfterTrigger(node, outcome) : undefined);
						return outcome;
					}
					if (Array.isArray(outcome)) lostPassed.push(outcome);
					ended?.resolve(runEndedWithoutData(executionId));
					return new Error(`Execution ${executionId} ended without its data`);
				}),
		);
	};
	const nodeStaticData = options.durableCursors
		? () => pollCursor
		: () => workflow.getStaticData('node', node);
	const newContext = (activation: WorkflowActivateMode) =>
		new PollContext(
			workflow,
			node,
			baseData,
			'trigger',
			activation,
			emit,
			emitError,
			undefined,
			undefined,
			nodeStaticData,
		);
	const durableTickContext = (budgetMs: number) =>
		new PollContext(
			workflow,
			node,
			baseData,
			'trigger',
			'update',
			emit,
			emitError,
			undefined,
			undefined,
			nodeStaticData,
			() => budgetMs,
		);
	let context = newContext('activate');
	// n8n stores the static data after the poll at publishing.
	let testPollPending = true;
	const activateFromStored = (activation: WorkflowActivateMode) => {
		workflow = loadWorkflow(
			new HarnessNodeTypes({ [options.nodeType]: nodeType }),
			storedWorkflowData,
		);
		context = newContext(activation);
		testPollPending = true;
	};
	const runOutsidePoll = async (mode: WorkflowExecuteMode, data: INodeExecutionData[][]) =>
		await runExecution(workflow, node, baseData, mode, data, nextExecutionId(), () => undefined);
	return {
		get staticData() {
			return options.durableCursors ? storedCursor : workflow.getStaticData('node', node);
		},
		get storedStaticData() {
			if (options.durableCursors) return storedCursor;
			return (storedWorkflowData[`node:${node.name}`] as IDataObject | undefined) ?? {};
		},
		get started() {
			return started.length;
		},
		async poll(pollOptions = {}) {
			started = [];
			reported = [];
			peakUnfinished = unfinished;
			store = pollOptions.executions !== 'notStored';
			answersHeldUntil = pollOptions.answersHeldUntil ?? Promise.resolve();
			workMs = pollOptions.workMs ?? 0;
			onWorkers = pollOptions.onWorkers ?? false;
			startsHeldUntil = pollOptions.startsHeldUntil ?? Promise.resolve();
			lostRuns = pollOptions.lostRuns ?? 0;
			unansweredRuns = pollOptions.unansweredRuns ?? 0;
			lostPassed = [];
			const pollContext = pollOptions.durableTick
				? durableTickContext(pollOptions.durableTick.budgetMs)
				: context;
			pollCursor = deepCopy(storedCursor);
			const testPoll = testPollPending && !pollOptions.durableTick;
			testPollPending = false;
			const returned = (await nodeType.poll?.call(pollContext)) ?? null;
			if (pollOptions.durableTick && returned === null) storeCursor();
			if (testPoll) storeStaticData();
			// An execution's end can start another (after one ended without its data): those are waited for too.
			let executions: Array<INodeExecutionData[] | Error> = [];
			while (executions.length < started.length) {
				executions = await Promise.all(started);
				// A turn of the event loop: a restart is emitted in the promise chain of the run's end.
				await sleep(0);
			}
			return { returned, executions, reported, peakUnfinished, lost: lostPassed };
		},
		activate(activation = 'activate') {
			activateFromStored(activation);
		},
		restart(freshNodeType) {
			nodeType = freshNodeType;
			activateFromStored('init');
		},
		async retry(items) {
			return await runOutsidePoll('retry', [items]);
		},
		async fetchTestEvent() {
			return await runOutsidePoll('manual', [[{ json: {} }]]);
		},
	};
}
