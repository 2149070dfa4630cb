/**
 * The operator's crash test of a receiver: a burst of distinct signed events at a fixed
 * concurrency, the receiving n8n process killed (SIGKILL) once a given number were answered 2xx,
 * started again, and every event not yet answered 2xx sent again until it is, as the service does.
 * The sandbox's delivery log is the service's side of the count; the workflow's executions are n8n's.
 */
import type { ExecutionRecord, WorkflowInput } from './n8n/api';
import { UNFINISHED } from './n8n/api';
import type { SandboxState } from '../sandbox/state';
import { until } from './wait';

export interface KillMidBurstOptions {
	state: SandboxState;
	events: number;
	concurrency: number;
	killAfterAcknowledged: number;
	/** SIGKILL the process that receives the deliveries (its whole process group). */
	kill: () => Promise<void>;
	/** Start it again on the same database; resolves once it takes deliveries. */
	restart: () => Promise<void>;
	/** The receiving workflow's executions with their data, as n8n stores them. */
	executions: () => Promise<ExecutionRecord[]>;
	/** Default 180 s: how long every acknowledged event may take to show in a finished execution. */
	settleTimeoutMs?: number;
}

/** The result with each list of events as its length, for a figures file. */
export function countsOf(result: KillMidBurstResult): Record<string, number> {
	return Object.fromEntries(Object.entries(result).map(([name, value]) => [name, Array.isArray(value) ? value.length : value]));
}

export interface KillMidBurstResult {
	events: number;
	acknowledgedBeforeKill: number;
	/** Events answered 2xx whose id is in no stored execution at all: lost. */
	acknowledgedWithoutExecution: string[];
	/** Events whose run reached the node after the trigger in more than one execution. */
	ranTwice: string[];
	/** Events that never ran past the trigger: cut short by the kill. */
	notRunPastTrigger: string[];
	/** Of those, events with no `crashed` or `error` execution holding them for n8n's Retry: dropped as repeats, wrongly. */
	stranded: string[];
	crashedExecutions: number;
	failedExecutions: number;
	/**
	 * `error` executions that hold no event at all: n8n 2.x in queue mode replaces the data of a
	 * run whose worker died with its own error ("job stalled more than maxStalledCount").
	 */
	failedWithDataReplaced: number;
	executions: number;
	/** From the kill until every event was answered 2xx and every execution had ended. */
	recoverySeconds: number;
	/** Sending rounds after the restart until every event was answered 2xx. */
	resendRounds: number;
}

const EVENT_ID = /evt_[0-9a-f]{16}/g;

/** The node after the receiver in `receiverWorkflow`: an event in its output ran past the trigger. */
export const RAN_NODE = 'Ran';

/** The receiver, then a node that every event it passes on reaches. */
export function receiverWorkflow(name: string, receiver: WorkflowInput['nodes'][number]): WorkflowInput {
	return {
		name,
		nodes: [{ ...receiver, position: [0, 0] }, { name: RAN_NODE, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} }],
		connections: { [receiver.name]: { main: [[{ node: RAN_NODE, type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

/** The Svc Trigger on lead.created with the sandbox credential of the examples. */
export const SVC_TRIGGER_RECEIVER: WorkflowInput['nodes'][number] = {
	name: 'On Lead Created',
	type: 'n8n-nodes-svc.svcEventTrigger',
	typeVersion: 1.1,
	// As the editor gives every webhook node: without one, n8n 1.x puts the node's name in the path.
	webhookId: '3b8e6c2d-9f41-4a7e-b5d0-7c1e2a9f6b83',
	parameters: { events: ['lead.created'] },
	credentials: { svcApi: { id: 'svcSandbox', name: 'Svc sandbox' } },
};

function eventIdsIn(execution: ExecutionRecord): Set<string> {
	return new Set(JSON.stringify(execution.data ?? {}).match(EVENT_ID) ?? []);
}

/** The events in the node's output in this execution, wherever the receiver put the id. */
function ranIds(execution: ExecutionRecord, node: string): Set<string> {
	return new Set(JSON.stringify(execution.data?.resultData.runData[node] ?? []).match(EVENT_ID) ?? []);
}

export async function killMidBurst(options: KillMidBurstOptions): Promise<KillMidBurstResult> {
	const { state } = options;
	const ids: string[] = [];
	const inBurst = new Set<string>();
	const acknowledged = () => new Set(state.deliveries.attempts().filter((attempt) => attempt.ok && inBurst.has(attempt.eventId)).map((attempt) => attempt.eventId));
	state.deliveries.limitConcurrency(options.concurrency);
	let resendRounds = 0;
	let killedAt: number;
	let acknowledgedBeforeKill: number;
	try {
		for (let number = 1; number <= options.events; number++) {
			const { id } = state.deliveries.emit('lead.created', { id: `lead_burst_${number}`, email: `burst-${number}@example.com` }).event;
			ids.push(id);
			inBurst.add(id);
		}
		await until(`${options.killAfterAcknowledged} events answered 2xx`, () => acknowledged().size >= options.killAfterAcknowledged, { everyMs: 5, timeoutMs: 300_000 });
		await options.kill();
		killedAt = Date.now();
		acknowledgedBeforeKill = acknowledged().size;
		// Against a process that is gone, the service's attempts fail at once and it stops retrying.
		await state.waitForDeliveries();
		await options.restart();
		for (;;) {
			const answered = acknowledged();
			const unanswered = ids.filter((id) => !answered.has(id));
			if (unanswered.length === 0) break;
			if (++resendRounds > 20) throw new Error(`${unanswered.length} events still not answered 2xx after 20 rounds of sending them again`);
			for (const id of unanswered) state.deliveries.redeliver(id);
			await state.waitForDeliveries();
		}
	} finally {
		state.deliveries.limitConcurrency(undefined);
	}

	const answered = acknowledged();
	let executions: ExecutionRecord[] = [];
	// Waits for what must hold; if it never does, the figures below say which events and why.
	await until(
		'every acknowledged event is in a finished execution',
		async () => {
			executions = await options.executions();
			if (executions.some((execution) => UNFINISHED.includes(execution.status))) return false;
			const stored = new Set(executions.flatMap((execution) => [...eventIdsIn(execution)]));
			return [...answered].every((id) => stored.has(id));
		},
		{ everyMs: 500, timeoutMs: options.settleTimeoutMs ?? 180_000 },
	).catch(() => undefined);
	const recoverySeconds = (Date.now() - killedAt) / 1000;

	const stored = new Set(executions.flatMap((execution) => [...eventIdsIn(execution)]));
	const runs = new Map<string, number>();
	for (const execution of executions) {
		for (const id of ranIds(execution, RAN_NODE)) runs.set(id, (runs.get(id) ?? 0) + 1);
	}
	const unfinishedRuns = executions.filter((execution) => execution.status === 'crashed' || execution.status === 'error');
	const retryable = new Set(unfinishedRuns.flatMap((execution) => [...eventIdsIn(execution)]));
	return {
		events: ids.length,
		acknowledgedBeforeKill,
		acknowledgedWithoutExecution: ids.filter((id) => answered.has(id) && !stored.has(id)),
		ranTwice: ids.filter((id) => (runs.get(id) ?? 0) > 1),
		notRunPastTrigger: ids.filter((id) => !runs.has(id)),
		stranded: ids.filter((id) => !runs.has(id) && !retryable.has(id) && stored.has(id)),
		crashedExecutions: executions.filter((execution) => execution.status === 'crashed').length,
		failedExecutions: executions.filter((execution) => execution.status === 'error').length,
		failedWithDataReplaced: unfinishedRuns.filter((execution) => execution.status === 'error' && eventIdsIn(execution).size === 0).length,
		executions: executions.length,
		recoverySeconds: Math.round(recoverySeconds * 10) / 10,
		resendRounds,
	};
}
