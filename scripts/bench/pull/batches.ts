/**
 * (p-batch) Svc Pull Trigger's two modes on the same backlog, in one n8n (plain http): one
 * execution per event, and batch mode (Events per Execution: Many). Each mode alone, and with a
 * Svc Get Lead per item after the trigger, as a real workflow has. Counted per mode: executions,
 * events/s from publishing until the last event ran, n8n's CPU per event, lost and twice.
 */
import type { Sandbox } from '../../../sandbox';
import { upsertLead } from '../../../sandbox/operations';
import {
	pullReceiverInBatches,
	ranPastTrigger,
	receiverWorkflow,
	stoppedAtTrigger,
	SVC_PULL_TRIGGER_RECEIVER,
} from '../../../harness/crash-receivers';
import { withCredential } from '../../../harness/example-workflows';
import type { WorkflowInput } from '../../../harness/n8n/api';
import { activate, deactivate, importWorkflow } from '../../../harness/n8n/api';
import { listExecutions, settledExecutions } from '../../../harness/n8n/executions';
import type { N8nInstance } from '../../../harness/n8n/instance';
import type { N8nRuntime } from '../../../harness/n8n-runtime/install';
import { until } from '../../../harness/wait';
import { CpuSplitTracker } from '../cpu';
import { pollReading, withPullBenchN8n } from './scenario';

export const BENCH_BATCH_SIZE = 100;
const RUN_TIMEOUT_MS = 60 * 60_000;
const N8N_LABEL = 'n8n main + task runner';

export interface PullModeRun {
	mode: 'one per event' | 'batches';
	getLead: boolean;
	backlog: number;
	executions: number;
	/** Executions that stopped at the trigger: events that had run, read again. */
	repeats: number;
	/** From publishing until the last event ran past the trigger (its lead read, with Get Lead). */
	drainMs: number;
	/** The polls' reading time: each from its first request to the last event it ran, not the wait for the next poll. */
	readingMs: number;
	polls: number;
	n8nCpuSeconds: number;
	lost: number;
	twice: number;
}

/** The receiver workflow, with a Svc Get Lead between the trigger and the node that reports to the sandbox. */
function benchWorkflow(
	trigger: WorkflowInput['nodes'][number],
	getLead: boolean,
	sandboxUrl: string,
): WorkflowInput {
	const workflow = receiverWorkflow(
		`Svc bench: pull, ${trigger.name}${getLead ? ', Get Lead' : ''}`,
		trigger,
		sandboxUrl,
	);
	if (!getLead) return workflow;
	const getLeadNode: WorkflowInput['nodes'][number] = {
		name: 'Get Lead',
		type: 'n8n-nodes-svc.svc',
		typeVersion: 1,
		position: [120, 0],
		parameters: {
			resource: 'lead',
			operation: 'get',
			leadId: { __rl: true, mode: 'id', value: '={{ $json.data.id }}' },
			options: {},
		},
		credentials: trigger.credentials,
	};
	return {
		...workflow,
		nodes: [...workflow.nodes, getLeadNode],
		connections: {
			[trigger.name]: { main: [[{ node: 'Get Lead', type: 'main', index: 0 }]] },
			'Get Lead': { main: [[{ node: 'Ran', type: 'main', index: 0 }]] },
		},
	};
}

/** How often each of `leadIds` was read by Get Lead (the service's side). */
function leadReads(sandbox: Sandbox, leadIds: string[]): number[] {
	const reads = new Map<string, number>();
	for (const request of sandbox.state.requests.all()) {
		const match = /^\/v1\/leads\/([^/]+)$/.exec(request.path);
		if (request.method === 'GET' && match) reads.set(match[1], (reads.get(match[1]) ?? 0) + 1);
	}
	return leadIds.map((id) => reads.get(id) ?? 0);
}

async function drainOnce(
	n8n: N8nInstance,
	sandbox: Sandbox,
	workflowId: string,
	backlog: number,
	getLead: boolean,
): Promise<Omit<PullModeRun, 'mode' | 'getLead'>> {
	// Published once, so that the trigger holds a position: the backlog builds up after it.
	await activate(n8n, workflowId);
	await deactivate(n8n, workflowId);
	const created = Array.from({ length: backlog }, (_, n) => {
		const { lead, event } = upsertLead(sandbox.state, {
			email: `bench-${workflowId}-${n}@example.com`,
		});
		if (!event) throw new Error('The sandbox made no lead.created event');
		return { leadId: lead.id, eventId: event.id };
	});
	const counts = (): number[] =>
		getLead
			? leadReads(
					sandbox,
					created.map(({ leadId }) => leadId),
				)
			: ((ran) => created.map(({ eventId }) => ran.get(eventId) ?? 0))(
					ranPastTrigger(sandbox.state),
				);
	const mark = sandbox.state.requests.all().length;
	const cpu = new CpuSplitTracker(new Map([[n8n.pid, N8N_LABEL]]), 'benchmark (sandbox)');
	cpu.start();
	const published = Date.now();
	let publishedAt = published;
	let drainMs: number;
	let cpuSeconds: Array<[string, number]>;
	try {
		await activate(n8n, workflowId);
		publishedAt = Date.now();
		await until('the backlog to run', () => counts().every((count) => count > 0), {
			timeoutMs: RUN_TIMEOUT_MS,
			everyMs: 250,
		});
		drainMs = Date.now() - published;
		await settledExecutions(n8n, workflowId, 10 * 60_000);
	} finally {
		cpuSeconds = cpu.stop();
		await deactivate(n8n, workflowId);
	}
	const runs = counts();
	const executions = await listExecutions(n8n, workflowId, { includeData: true });
	return {
		backlog,
		executions: executions.length,
		repeats: stoppedAtTrigger(executions).length,
		drainMs,
		...pollReading(sandbox, mark, publishedAt, getLead ? /^\/v1\/leads\/[^/]+$/ : '/__ran'),
		n8nCpuSeconds: cpuSeconds.find(([label]) => label === N8N_LABEL)?.[1] ?? 0,
		lost: runs.filter((count) => count === 0).length,
		twice: runs.filter((count) => count > 1).length,
	};
}

export async function scenarioPBatch(context: {
	runtime: N8nRuntime;
	tarball: string;
	sandbox: Sandbox;
	backlog: number;
}): Promise<PullModeRun[]> {
	const { sandbox } = context;
	return await withPullBenchN8n(context, async (n8n, credential) => {
		const runs: PullModeRun[] = [];
		for (const getLead of [false, true]) {
			for (const [mode, trigger] of [
				['one per event', SVC_PULL_TRIGGER_RECEIVER],
				['batches', pullReceiverInBatches(BENCH_BATCH_SIZE)],
			] as const) {
				const { id } = await importWorkflow(
					n8n,
					withCredential(benchWorkflow(trigger, getLead, sandbox.url), credential),
				);
				runs.push({
					mode,
					getLead,
					...(await drainOnce(n8n, sandbox, id, context.backlog, getLead)),
				});
			}
		}
		return runs;
	});
}
