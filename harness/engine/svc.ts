/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	IRun,
	NodeExecutionHint,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { SvcApi } from '../../credentials/SvcApi.credentials';
// The extension is explicit: beside each node source sits its codex file, Svc.node.json.
import { Svc } from '../../nodes/Svc/Svc.node.ts';
import { SvcPullTrigger } from '../../nodes/Svc/SvcPullTrigger.node.ts';
import { SvcTrigger } from '../../nodes/Svc/SvcTrigger.node.ts';
import type { EventEnvelope } from '../../nodes/Svc/contract';
import type { Sandbox } from '../../sandbox';
import { DEMO_KEYS, startSandbox } from '../../sandbox';
import { SVC_NODE_TYPE, SVC_PULL_TRIGGER_TYPE, SVC_TRIGGER_TYPE } from '../project';
import type { PollHarness, TriggerHarness } from '.';
import {
	chain,
	createPollHarness,
	createTriggerHarness,
	errorOf,
	outputOf,
	runWorkflow,
	startNode,
} from '.';

export const FULL_KEY = DEMO_KEYS[0].key;
export const READ_ONLY_KEY = DEMO_KEYS[1].key;
export const NO_SENSITIVE_KEY = DEMO_KEYS[2].key;
export const LEGACY_KEY = DEMO_KEYS[3].key;

export interface SvcRunOptions {
	items?: IDataObject[];
	apiKey?: string;
	baseUrl?: string;
	/** Node settings such as onError, retryOnFail, maxTries. */
	settings?: Partial<INode>;
	executionId?: string;
	/** n8n's execution mode; default 'manual'. */
	mode?: WorkflowExecuteMode;
}

export interface SvcRun {
	run: IRun;
	output: INodeExecutionData[];
	error: ReturnType<typeof errorOf>;
	hints: NodeExecutionHint[];
}

/** A Svc node named "Svc" with the sandbox credential: the plain node, or its AI tool copy by type. */
export function svcNode(
	parameters: INodeParameters,
	type = SVC_NODE_TYPE,
	settings: Partial<INode> = {},
): INode {
	return {
		id: 'svc-node-1',
		name: 'Svc',
		type,
		typeVersion: 1,
		position: [200, 0],
		parameters,
		credentials: { svcApi: { id: '1', name: 'Svc account' } },
		...settings,
	};
}

/** Runs Start → Svc in n8n's engine against the sandbox. */
export async function runSvc(
	sandbox: Sandbox,
	parameters: INodeParameters,
	options: SvcRunOptions = {},
): Promise<SvcRun> {
	const node = svcNode(parameters, SVC_NODE_TYPE, options.settings);
	const run = await runWorkflow({
		nodes: [startNode(), node],
		connections: chain('Start', 'Svc'),
		nodeTypes: { [SVC_NODE_TYPE]: new Svc() },
		credentialTypes: [new SvcApi()],
		credentials: {
			svcApi: { apiKey: options.apiKey ?? FULL_KEY, baseUrl: options.baseUrl ?? sandbox.url },
		},
		items: (options.items ?? [{}]).map((json) => ({ json })),
		executionId: options.executionId,
		mode: options.mode,
	});
	const tasks = run.data.resultData.runData.Svc ?? [];
	const hints = tasks.flatMap((task) => task.hints ?? []);
	return {
		run,
		output: tasks.length > 0 ? outputOf(run, 'Svc') : [],
		error: tasks.length > 0 ? errorOf(run, 'Svc') : run.data.resultData.error,
		hints,
	};
}

/** A sandbox per test file; `maxPageSize` small so lists span several pages. */
export function useSandbox(options: Parameters<typeof startSandbox>[0] = {}): () => Sandbox {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox({ maxPageSize: 5, ...options });
	});
	afterEach(() => {
		sandbox?.state.reset();
	});
	afterAll(async () => {
		await sandbox?.close();
	});
	return () => {
		if (!sandbox) throw new Error('sandbox not started');
		return sandbox;
	};
}

/**
 * For the tests of a describe block (or file): the transport waits a random share of each retry's
 * back-off (full jitter), and here draws 0, so failures take their full count of attempts without
 * the waits. Only for files whose sandbox faults fire on any draw: rate 1, or a rule with a seed.
 */
export function withoutBackoffJitter(): void {
	beforeEach(() => jest.spyOn(Math, 'random').mockReturnValue(0));
	afterEach(() => jest.restoreAllMocks());
}

/** Requests the sandbox recorded for a route such as "POST /v1/leads". */
export function requestsTo(sandbox: Sandbox, route: string) {
	return sandbox.state.requests.all().filter((request) => request.route === route);
}

/** Everything a run produced that a user or a log could see, as one string. */
export function visibleText(result: SvcRun): string {
	return JSON.stringify(
		{
			output: result.output,
			error: result.error,
			hints: result.hints,
			resultError: result.run.data.resultData.error,
		},
		(_key, value: unknown) =>
			value instanceof Error
				? {
						message: value.message,
						description: (value as { description?: unknown }).description,
						stack: value.stack,
						context: (value as { context?: unknown }).context,
					}
				: value,
	);
}

export interface SvcTriggerOptions {
	apiKey?: string;
	events?: string[];
	otherEvents?: string;
	includeHeaders?: boolean;
	/** Events per Execution: Many, with this Batch Size. */
	batchSize?: number;
	webhookBaseUrl?: string;
	webhookId?: string;
	/** The same workflow as an earlier harness's (its `workflowId`): the same trigger, another credential. */
	workflowId?: string;
	/** 'manual' for a test listen from the editor. */
	mode?: 'webhook' | 'manual';
	/** Run Events From; the node's default (each delivery) when not given. */
	runEventsFrom?: 'delivery' | 'eventList';
}

/** Svc Trigger driven through n8n's HookContext and WebhookContext, against the sandbox. */
export async function createSvcTrigger(
	sandbox: Sandbox,
	options: SvcTriggerOptions = {},
): Promise<TriggerHarness> {
	return await createTriggerHarness({
		nodeType: SVC_TRIGGER_TYPE,
		nodeTypes: { [SVC_TRIGGER_TYPE]: new SvcTrigger() },
		credentialTypes: [new SvcApi()],
		credentials: { svcApi: { apiKey: options.apiKey ?? FULL_KEY, baseUrl: sandbox.url } },
		node: {
			name: 'Svc Trigger',
			parameters: {
				events: options.events ?? ['lead.created'],
				otherEvents: options.otherEvents ?? '',
				options: { includeHeaders: options.includeHeaders ?? false },
				...(options.batchSize === undefined
					? {}
					: { eventsPerExecution: 'batch', batchSize: options.batchSize }),
				...(options.runEventsFrom === undefined ? {} : { runEventsFrom: options.runEventsFrom }),
			},
			credentials: { svcApi: { id: '1', name: 'Svc account' } },
			...(options.webhookId ? { webhookId: options.webhookId } : {}),
		},
		webhookBaseUrl: options.webhookBaseUrl ?? 'https://hooks.example.com/webhook',
		workflowId: options.workflowId,
		mode: options.mode,
	});
}

/** Svc Pull Trigger driven through n8n's PollContext, against the sandbox. */
export async function createSvcPullTrigger(
	sandbox: Sandbox,
	options: {
		apiKey?: string;
		events?: string[];
		workflowId: string;
		parameters?: IDataObject;
		durableCursors?: boolean;
	},
): Promise<PollHarness> {
	return await createPollHarness({
		durableCursors: options.durableCursors,
		nodeType: SVC_PULL_TRIGGER_TYPE,
		nodeTypes: { [SVC_PULL_TRIGGER_TYPE]: new SvcPullTrigger() },
		credentialTypes: [new SvcApi()],
		credentials: { svcApi: { apiKey: options.apiKey ?? FULL_KEY, baseUrl: sandbox.url } },
		node: {
			id: 'harness-pull-trigger',
			name: 'Svc Pull Trigger',
			parameters: {
				events: options.events ?? ['lead.created'],
				otherEvents: '',
				startFrom: 'now',
				...options.parameters,
			},
			credentials: { svcApi: { id: '1', name: 'Svc account' } },
		},
		workflowId: options.workflowId,
	});
}

/** The signing secret of the subscription a Svc Trigger harness made, as the service keeps it. */
export function subscriptionSecret(sandbox: Sandbox, t: TriggerHarness): string {
	const { id } = t.staticData.subscription as { id: string };
	return sandbox.state.store.subscriptions.get(id)?.secret ?? '';
}

const listedCounts = new Map<string, number>();

/**
 * `count` lead.created events the service created `ageMs` ago, in its event list and delivered to
 * no one (the tests deliver each when they choose): ids `evt_<label>_<n>`, numbered on per label.
 */
export function listedLeadsCreated(
	sandbox: Sandbox,
	label: string,
	count: number,
	ageMs = 0,
): EventEnvelope[] {
	return Array.from({ length: count }, () => {
		const number = (listedCounts.get(label) ?? 0) + 1;
		listedCounts.set(label, number);
		const event: EventEnvelope = {
			id: `evt_${label}_${number}`,
			type: 'lead.created',
			created_at: new Date(Date.now() - ageMs).toISOString(),
			data: { id: `lead_${label}_${number}` },
		};
		sandbox.state.eventLog.add(event);
		return event;
	});
}
