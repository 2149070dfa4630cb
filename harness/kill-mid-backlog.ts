/**
 * The crash test of Svc Pull Trigger: a backlog built up while its workflow was unpublished, n8n
 * killed (SIGKILL) in the middle of draining it and started again, and what the kill cut short
 * retried as a person would. The sandbox counts how often each event ran past the trigger.
 */
import {
	ranPastTrigger,
	TWO_POLLS_MS,
	emitLeadsCreated,
	stoppedAtTrigger,
	untilRanPastTrigger,
} from './crash-receivers';
import type { Environment } from './environment';
import { activate, deactivate } from './n8n/api';
import { listExecutions, settledExecutions } from './n8n/executions';
import { aClaimedRunIsUnderWay, retryCutShortRuns } from './held-events';
import { until } from './wait';

export interface KillMidBacklogResult {
	/** The backlog's events, in the order they were created. */
	ids: string[];
	/** How often each of `ids` ran past the trigger, once every one ran or the wait ended. */
	runs: number[];
	ranBeforeKill: Set<string>;
	/** Runs n8n marked crashed: those the kill cut short. */
	crashed: number;
	/** Of those, the runs holding events that had not run, retried (a run cut short before its
	 * claim needs none: the next poll reads its events again and runs them). */
	retried: number;
	/** Executions started after the restart that stopped at the trigger: events read again that had run. */
	repeats: number;
	/** Runs n8n left `running` after the restart, which were stopped before the retries (stopRunsLeftRunning). */
	stoppedLeftRunning: number;
}

/**
 * A backlog of `events` created after `workflowId`'s trigger took a position (published once,
 * then unpublished); published again; n8n killed once `killAfterRan` of it ran and a run holding
 * none that ran is under way (the runs start in waves: counting alone can land between two), and
 * started again (`env.n8n` is the new process); what the kill cut short and did not run, retried.
 */
export async function killMidBacklog(
	env: Environment,
	workflowId: string,
	{ events, killAfterRan }: { events: number; killAfterRan: number },
): Promise<KillMidBacklogResult> {
	await activate(env.n8n, workflowId);
	await deactivate(env.n8n, workflowId);
	const ids = emitLeadsCreated(env.sandbox.state, events);
	await activate(env.n8n, workflowId);
	const ranOf = () => {
		const ran = ranPastTrigger(env.sandbox.state);
		return ids.filter((event) => ran.has(event)).length;
	};
	await until(`${killAfterRan} of the backlog to run`, () => ranOf() >= killAfterRan, {
		timeoutMs: TWO_POLLS_MS,
		everyMs: 100,
	});
	const backlog = new Set(ids);
	await until(
		'a run to be under way holding none of the events that ran',
		async () => await aClaimedRunIsUnderWay(env.n8n, env.sandbox.state, workflowId, backlog),
		{ timeoutMs: TWO_POLLS_MS, everyMs: 100 },
	);
	const killedAt = Date.now();
	await env.n8n.kill();
	const ran = ranPastTrigger(env.sandbox.state);
	const ranBeforeKill = new Set(ids.filter((event) => ran.has(event)));
	const restartedAt = Date.now();
	env.n8n = await env.n8n.restart();
	// A run the kill cut short holds its events: n8n marks it crashed (or leaves it running, and a
	// person stops it), and a person retries it when its events did not run past the trigger.
	const { retried, stoppedLeftRunning } = await retryCutShortRuns(
		env.n8n,
		workflowId,
		backlog,
		env.sandbox.state,
		killedAt,
	);
	const runs = await untilRanPastTrigger(env.sandbox.state, ids, 2 * TWO_POLLS_MS);
	const crashed = (await listExecutions(env.n8n, workflowId)).filter(
		({ status }) => status === 'crashed',
	).length;
	await settledExecutions(env.n8n, workflowId, TWO_POLLS_MS);
	const afterRestart = (await listExecutions(env.n8n, workflowId, { includeData: true })).filter(
		(execution) => Date.parse(execution.startedAt) >= restartedAt,
	);
	return {
		ids,
		runs,
		ranBeforeKill,
		crashed,
		retried,
		stoppedLeftRunning,
		repeats: stoppedAtTrigger(afterRestart).length,
	};
}
