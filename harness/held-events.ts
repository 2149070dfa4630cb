/**
 * What a receiver workflow's stored executions hold: the events each names, the cut-short runs a
 * person retries, and what ran again through n8n's Retry.
 */
import { retryExecution, stopExecution } from './n8n/api';
import type { ExecutionRecord } from './n8n/executions';
import { dataOnceEnded, isUnfinished, listExecutions } from './n8n/executions';
import type { N8nInstance } from './n8n/instance';
import type { SandboxState } from '../sandbox/state';
import { EVENT_ID, ranPastTrigger } from './crash-receivers';
import { until } from './wait';

/**
 * A run n8n marked crashed or failed, or one a person stopped (stopRunsLeftRunning): one a person
 * may retry (a stopped one through n8n's API).
 */
export const isCutShort = (execution: ExecutionRecord | undefined): boolean =>
	execution?.status === 'crashed' ||
	execution?.status === 'error' ||
	execution?.status === 'canceled';

/**
 * After a restart in n8n's regular mode, where the killed process ran every run: stops, as a person
 * does from the executions list, each run started before the kill (`killedAt`) that n8n has not
 * ended once it is up again, and returns their ids. n8n marks the rest at start-up, before it
 * says it has started, but n8n (both majors) leaves a run `running` for good when its event log
 * holds the run's start and no node's message yet (docs/reliability.md). Stopped, it is
 * `canceled`, and a retry through n8n's API (the editor offers none for it) runs its events.
 */
export async function stopRunsLeftRunning(
	n8n: N8nInstance,
	workflowId: string,
	killedAt: number,
): Promise<string[]> {
	// n8n's list leaves out only the runs its process is running: one left running shows in both reads.
	const leftRunning = new Set(
		(await listExecutions(n8n, workflowId, { withRunning: true }))
			.filter((execution) => isUnfinished(execution) && Date.parse(execution.startedAt) < killedAt)
			.map(({ id }) => id),
	);
	for (const id of leftRunning) await stopExecution(n8n, id);
	return [...leftRunning];
}

/** Each execution with the event ids its data holds. */
export function withEventIds(
	executions: ExecutionRecord[],
): Array<{ execution: ExecutionRecord; eventIds: Set<string> }> {
	return executions.map((execution) => ({
		execution,
		eventIds: new Set(JSON.stringify(execution.data ?? {}).match(EVENT_ID) ?? []),
	}));
}

/**
 * The crashed or failed runs holding one of `events` that has not run past the trigger (`ran`):
 * the ones a person retries after a crash.
 */
export function runsToRetry(
	held: Array<{ execution: ExecutionRecord; eventIds: Set<string> }>,
	ran: ReadonlyMap<string, number>,
	events: ReadonlySet<string>,
): Array<{ execution: ExecutionRecord; eventIds: Set<string> }> {
	return held.filter(
		({ execution, eventIds }) =>
			isCutShort(execution) && [...eventIds].some((id) => events.has(id) && !ran.has(id)),
	);
}

/**
 * The events that ran exactly twice past the trigger, first in a run n8n marked crashed or failed
 * and then in n8n's Retry of that run (`runs`: the executions each event ran in, in order).
 */
export function rerunsByRetry(
	runs: ReadonlyMap<string, string[]>,
	executions: ExecutionRecord[],
): Set<string> {
	const byId = new Map(executions.map((execution) => [execution.id, execution]));
	return new Set(
		[...runs]
			.filter(
				([, [first, second, ...more]]) =>
					second !== undefined &&
					more.length === 0 &&
					isCutShort(byId.get(first)) &&
					byId.get(second)?.retryOf === first,
			)
			.map(([id]) => id),
	);
}

/** Every event some execution holds, and the executions n8n ended as `error` holding none (it replaced the run's data with its own error). */
export function storedEvents(
	executions: Array<{ execution: ExecutionRecord; eventIds: Set<string> }>,
): {
	stored: Set<string>;
	dataReplaced: number;
} {
	return {
		stored: new Set(executions.flatMap(({ eventIds }) => [...eventIds])),
		dataReplaced: executions.filter(
			({ execution, eventIds }) => execution.status === 'error' && eventIds.size === 0,
		).length,
	};
}

/**
 * Whether a run of `workflowId` under way holds events of `ids` none of which ran past the
 * trigger yet: a run (one event, or a batch) claimed and not finished, which a kill now cuts short.
 */
export async function aClaimedRunIsUnderWay(
	n8n: N8nInstance,
	state: SandboxState,
	workflowId: string,
	ids: ReadonlySet<string>,
): Promise<boolean> {
	const running = await listExecutions(n8n, workflowId, {
		status: 'running',
		includeData: true,
	});
	const ran = ranPastTrigger(state);
	return withEventIds(running).some(
		({ eventIds }) =>
			eventIds.size > 0 && [...eventIds].every((event) => ids.has(event) && !ran.has(event)),
	);
}

/**
 * After n8n was killed and started again: waits until n8n has ended or marked `crashed` every
 * run of the workflow (it marks them once it has started), then retries, as a person would, each
 * cut-short run holding one of `events` that did not run past the trigger. In n8n's regular mode
 * (`regularModeKilledAt`: when the process that ran every run was killed), the runs n8n left
 * running are stopped first (stopRunsLeftRunning). Returns how many were retried, and stopped.
 */
export async function retryCutShortRuns(
	n8n: N8nInstance,
	workflowId: string,
	events: ReadonlySet<string>,
	state: SandboxState,
	regularModeKilledAt?: number,
): Promise<{ retried: number; stoppedLeftRunning: number }> {
	let executions: ExecutionRecord[] = [];
	const list = async (includeData: boolean) =>
		await listExecutions(n8n, workflowId, { includeData });
	const stopped =
		regularModeKilledAt === undefined
			? []
			: await stopRunsLeftRunning(n8n, workflowId, regularModeKilledAt);
	// Runs under way after the restart (a poll draining a backlog) are left out: waiting for them
	// could take the whole backlog, and the claim stops a Retry whose event they run. n8n's list
	// leaves out the runs its process is running, but not one it is just starting, so under load a
	// drain shows one at almost every read: only the runs unfinished at the first read are awaited.
	const leftByKilled = new Set((await list(false)).filter(isUnfinished).map(({ id }) => id));
	const isLeftByKilled = (execution: ExecutionRecord) =>
		isUnfinished(execution) && leftByKilled.has(execution.id);
	const read = dataOnceEnded(list);
	await until(
		"n8n to mark the killed process's runs",
		async () => {
			executions = await read(isLeftByKilled);
			return !executions.some(isLeftByKilled);
		},
		{ timeoutMs: 120_000, everyMs: 250 },
	);
	const toRetry = runsToRetry(withEventIds(executions), ranPastTrigger(state), events);
	for (const { execution } of toRetry) await retryExecution(n8n, execution.id);
	return { retried: toRetry.length, stoppedLeftRunning: stopped.length };
}
