/**
 * The operator's crash test of a receiver: a burst of distinct signed events at a fixed
 * concurrency, the receiving n8n process killed (SIGKILL) once a given number were answered 2xx,
 * started again, and every event not yet answered 2xx sent again until it is, as the service does.
 * The sandbox's delivery log is the service's side of the count; the workflow's executions are n8n's.
 */
import type { ExecutionReader, ExecutionRecord } from './n8n/executions';
import { dataOnceEnded, isUnfinished } from './n8n/executions';
import { answeredBusy, ranPastTrigger, runsPastTrigger, stoppedAtTrigger } from './crash-receivers';
import { isCutShort, rerunsByRetry, runsToRetry, storedEvents, withEventIds } from './held-events';
import type { SandboxState } from '../sandbox/state';
import { answeredOf, attemptsOf, sendUntilAnswered } from './delivery-log';
import { until } from './wait';

/** The longest `killMidBurst` waits for the answers before the kill. */
const ACKNOWLEDGED_WAIT_MS = 300_000;
/** The default of `settleTimeoutMs`: each of its two waits (n8n settles; the retried runs end). */
const SETTLE_WAIT_MS = 180_000;
/**
 * A test's limit above every wait of `killMidBurst` (with room for the kill, the restart and the
 * resends), so that a slow recovery fails with its figures, not with jest's timeout, which drops them.
 */
export const KILL_MID_BURST_TEST_TIMEOUT_MS = ACKNOWLEDGED_WAIT_MS + 2 * SETTLE_WAIT_MS + 120_000;

export interface KillMidBurstOptions {
	state: SandboxState;
	events: number;
	concurrency: number;
	killAfterAcknowledged: number;
	/** SIGKILL the process that receives the deliveries (its whole process group). */
	kill: () => Promise<void>;
	/** Start it again on the same database; resolves once it takes deliveries. */
	restart: () => Promise<void>;
	/** The receiving workflow's executions, with their data when asked, as n8n stores them, running ones included. */
	executions: ExecutionReader;
	/** Default `SETTLE_WAIT_MS`: how long every acknowledged event may take to show in a finished execution. */
	settleTimeoutMs?: number;
	/**
	 * n8n's Retry of one execution, as a person does it from the executions list. When given,
	 * every `crashed` or `error` execution holding an event that has not run past the trigger is
	 * retried once, and the counts of what ran include those retries.
	 */
	retry?: (executionId: string) => Promise<void>;
	/**
	 * n8n's regular mode, where the killed process ran every run: after the restart, stops the runs
	 * it started before the kill (`killedAt`) that n8n left running (stopRunsLeftRunning), so that
	 * they count as cut short; returns their ids.
	 */
	stopLeftRunning?: (killedAt: number) => Promise<string[]>;
	/**
	 * Queue mode: the ids of the executions that have a job in n8n's queue. Give it only when the
	 * killed process is one that stores and queues runs (a webhook processor): an execution still
	 * `new` without a job was stored by it before it queued the run, and nothing will start it
	 * (n8n 2.41 leaves it `new` for good), so it is counted as `orphaned`, not waited for. With a
	 * worker killed, a `new` run without a job is one the dead worker had taken; the process that
	 * queued it fails it after its grace window (30 s on n8n 2.41), so it is waited for.
	 */
	queuedExecutionIds?: () => Promise<Set<string>>;
	/**
	 * The receiver's runs hold events their data does not name (Svc Trigger in batches reads them
	 * from the event list; a Retry reads the same range again): every crashed or failed run is
	 * retried, as a person retries each, and an answered event is lost when it never ran past the
	 * trigger, retries included.
	 */
	runsReadRanges?: boolean;
	/**
	 * For a receiver whose runs do not follow its answers (Svc Trigger running from the event list):
	 * the kill waits for this (a run under way on `burst`'s events) instead of
	 * `killAfterAcknowledged` answers, so that it lands on runs.
	 */
	killWhen?: (burst: ReadonlySet<string>) => Promise<boolean>;
}

/**
 * What must be empty after a kill where n8n keeps every run's data: events answered 2xx without an
 * execution, run twice, or stranded, with each event's attempts and executions (one value, so a
 * failed assertion shows them all).
 */
export function lossesOf(
	result: KillMidBurstResult,
): Pick<KillMidBurstResult, 'ranTwice' | 'stranded' | 'details'> & { lost: string[] } {
	return {
		lost: result.acknowledgedWithoutExecution,
		ranTwice: result.ranTwice,
		stranded: result.stranded,
		details: result.details,
	};
}
export const NO_LOSSES = { lost: [], ranTwice: [], stranded: [], details: [] };

/** The result with each list of events as its length, for a figures file. */
export function countsOf(result: KillMidBurstResult): Record<string, number | string[]> {
	const { details, unfinished, orphaned, ...figures } = result;
	return {
		...Object.fromEntries(
			Object.entries(figures).map(([name, value]) => [
				name,
				Array.isArray(value) ? value.length : value,
			]),
		),
		...(details.length > 0 ? { details } : {}),
		...(unfinished.length > 0 ? { unfinished } : {}),
		...(orphaned.length > 0 ? { orphaned } : {}),
	};
}

export interface KillMidBurstResult {
	events: number;
	acknowledgedBeforeKill: number;
	/** Events of the burst that had run past the trigger when the kill went out. */
	ranBeforeKill: number;
	/** Events answered 2xx whose id is in no stored execution at all: lost. */
	acknowledgedWithoutExecution: string[];
	/** Events whose run reached the node after the trigger more than once (counted at the sandbox), retries included, except `rerunByRetry`. */
	ranTwice: string[];
	/**
	 * n8n's own repeat, not the trigger's: events the node after the trigger had handled in a run the
	 * kill cut short, run again by that run's Retry (n8n retries a run whole; a batch cut in the
	 * middle of a node repeats the items that node had handled).
	 */
	rerunByRetry: string[];
	/** Executions retried because they held an event that had not run past the trigger. */
	retried: number;
	/** With `retry`: events answered 2xx and stored that never ran past the trigger, even after those retries. */
	notRunAfterRetry: string[];
	/** Events that never ran past the trigger: cut short by the kill. */
	notRunPastTrigger: string[];
	/** Of those, events with no `crashed` or `error` execution holding them for n8n's Retry: dropped as repeats, wrongly. */
	stranded: string[];
	/** This burst's executions (not an earlier burst's against the same workflow) that crashed or failed. */
	crashedExecutions: number;
	/** Runs n8n left `running` after the restart, stopped as a person does (`stopLeftRunning`). */
	stoppedLeftRunning: number;
	failedExecutions: number;
	/**
	 * `error` executions that hold no event at all: n8n 2.x in queue mode replaces the data of a
	 * run whose worker died with its own error ("job stalled more than maxStalledCount").
	 */
	failedWithDataReplaced: number;
	/** The executions this burst started, the retries' not included. */
	executions: number;
	/** Of those, ended well at the trigger on an event that had run in another: the cost of repeats. */
	stoppedOnRepeat: number;
	/** Of those, ended at the trigger after answering 503 from inside (no room): the event came again. */
	answeredBusy: number;
	/** From the kill until every event was answered 2xx and every execution had ended. */
	recoverySeconds: number;
	/** Executions still not ended when the harness stopped waiting (`id status`): why recovery took its full wait. */
	unfinished: string[];
	/** Executions left `new` with no job in n8n's queue: stored by the killed process, never queued, never run. */
	orphaned: string[];
	/** Sending rounds after the restart until every event was answered 2xx. */
	resendRounds: number;
	/** For each lost, stranded, never-run or twice-run event: the service's attempts and the executions that hold it. */
	details: string[];
}

/** One read of the receiving workflow's executions; `waiting` and `orphans` as `killMidBurst` counts them. */
interface ExecutionsLook {
	executions: ExecutionRecord[];
	waiting: ExecutionRecord[];
	orphans: Set<string>;
}

/** One execution in a line: id, status, start, what it retried, the nodes it ran (with their runs) and its error. */
function describeExecution(execution: ExecutionRecord): string {
	const resultData = execution.data?.resultData;
	const nodesRun = Object.entries(resultData?.runData ?? {})
		.map(([name, runs]) => `${name}×${runs.length}`)
		.join('+');
	return [
		`${execution.id} ${execution.status} from ${execution.startedAt?.slice(11, 23)}`,
		...(execution.retryOf ? [`retry of ${execution.retryOf}`] : []),
		`nodes run: ${nodesRun || 'none'}`,
		`stack: ${execution.data?.executionData?.nodeExecutionStack.map(({ node }) => node.name).join('+') || 'empty'}`,
		...(resultData?.error ? [`error: ${resultData.error.message.slice(0, 160)}`] : []),
	].join(', ');
}

/** The details line of each of these events, so that a failed assertion on them says why. */
export function detailsOf(result: KillMidBurstResult, eventIds: string[]): string[] {
	return result.details.filter((line) => eventIds.some((id) => line.startsWith(`${id}:`)));
}

export async function killMidBurst(options: KillMidBurstOptions): Promise<KillMidBurstResult> {
	const { state } = options;
	const ids: string[] = [];
	const inBurst = new Set<string>();
	const acknowledged = () => answeredOf(state, inBurst);
	// An earlier burst against the same workflow: its runs are not counted as this burst's, and
	// those it left unfinished (a killed webhook processor's orphan stays `new` for good) are not
	// waited for, which would take the whole settle wait.
	const earlier = await options.executions(false);
	const fromEarlier = new Set(earlier.map(({ id }) => id));
	const leftByEarlier = new Set(earlier.filter(isUnfinished).map(({ id }) => id));
	state.deliveries.limitConcurrency(options.concurrency);
	let resendRounds = 0;
	let killedAt: number;
	let acknowledgedBeforeKill: number;
	let ranBeforeKill: number;
	let stoppedLeftRunning: string[] = [];
	try {
		for (let number = 1; number <= options.events; number++) {
			const { id } = state.deliveries.emit('lead.created', {
				id: `lead_burst_${number}`,
				email: `burst-${number}@example.com`,
			}).event;
			ids.push(id);
			inBurst.add(id);
		}
		const { killWhen } = options;
		if (killWhen)
			await until('a run under way to kill', async () => await killWhen(inBurst), {
				everyMs: 50,
				timeoutMs: ACKNOWLEDGED_WAIT_MS,
			});
		else
			await until(
				`${options.killAfterAcknowledged} events answered 2xx`,
				() => acknowledged().size >= options.killAfterAcknowledged,
				{ everyMs: 5, timeoutMs: ACKNOWLEDGED_WAIT_MS },
			);
		// Counted as the SIGKILL goes out (kill() sends it at once, then waits for the processes to
		// end): a killed worker leaves the webhook processor answering, and n8n's Webhook node answers
		// the rest of the burst while the worker's processes end.
		killedAt = Date.now();
		acknowledgedBeforeKill = acknowledged().size;
		const ranThen = ranPastTrigger(state);
		ranBeforeKill = ids.filter((id) => ranThen.has(id)).length;
		await options.kill();
		// Against a process that is gone, the service's attempts fail at once and it stops retrying.
		await state.waitForDeliveries();
		await options.restart();
		stoppedLeftRunning = (await options.stopLeftRunning?.(killedAt)) ?? [];
		resendRounds = await sendUntilAnswered(state, ids);
	} finally {
		state.deliveries.limitConcurrency(undefined);
	}

	const answered = acknowledged();
	/**
	 * The executions, with those not ended yet (`waiting`) and those stored but never queued, which
	 * nothing will start (`orphans`, see `queuedExecutionIds`). n8n's queue is read first, so a run
	 * whose job ends and leaves the queue between the two reads shows as ended, never as an orphan.
	 */
	const read = dataOnceEnded(options.executions);
	/** `withData`: read the data even while runs are waiting (for the figures after a timed-out wait). */
	const look = async (withData = false): Promise<ExecutionsLook> => {
		const queued = await options.queuedExecutionIds?.();
		const isOrphan = (execution: ExecutionRecord) =>
			queued !== undefined && execution.status === 'new' && !queued.has(execution.id);
		const isWaiting = (execution: ExecutionRecord) =>
			isUnfinished(execution) && !isOrphan(execution) && !leftByEarlier.has(execution.id);
		const executions = withData ? await options.executions(true) : await read(isWaiting);
		return {
			executions,
			waiting: executions.filter(isWaiting),
			orphans: new Set(executions.filter(isOrphan).map(({ id }) => id)),
		};
	};
	let settled: ExecutionsLook = { executions: [], waiting: [], orphans: new Set() };
	// Waits for what must hold, or for n8n to have ended as many runs without their data as events
	// are missing (n8n 2.x, a dead worker); if neither comes, the figures below say which events and why.
	await until(
		'every acknowledged event is in a finished execution',
		async () => {
			settled = await look();
			if (settled.waiting.length > 0) return false;
			if (options.runsReadRanges) return true;
			const { stored, dataReplaced } = storedEvents(withEventIds(settled.executions));
			return [...answered].filter((id) => !stored.has(id)).length <= dataReplaced;
		},
		{ everyMs: 500, timeoutMs: options.settleTimeoutMs ?? SETTLE_WAIT_MS },
	).catch(() => undefined);
	if (settled.waiting.length > 0) settled = await look(true);
	const { executions } = settled;
	const burstRuns = executions.filter(({ id }) => !fromEarlier.has(id));
	const recoverySeconds = (Date.now() - killedAt) / 1000;
	const stopped = stoppedAtTrigger(burstRuns);

	const held = withEventIds(executions);
	const { stored, dataReplaced } = storedEvents(held);
	const runsBeforeRetry = ranPastTrigger(state);
	const failedHolding = held.filter(({ execution }) => isCutShort(execution));
	const retryable = new Set(failedHolding.flatMap(({ eventIds }) => [...eventIds]));
	const toRetry = options.runsReadRanges
		? failedHolding
		: runsToRetry(held, runsBeforeRetry, inBurst);
	// The executions after the retries, for the details: a retry's own outcome shows beside the run it retried.
	let heldAfterRetry = held;
	if (options.retry) {
		for (const { execution } of toRetry) await options.retry(execution.id);
		let afterRetry = settled;
		// Runs that did not end in the wait above are in the figures already; waiting for them again
		// would only spend the test's time before it can report them.
		const stuck = new Set(settled.waiting.map(({ id }) => id));
		// As above: if they do not end, the figures below say which events did not run.
		await until(
			'every retried execution has ended',
			async () => {
				afterRetry = await look();
				return (
					afterRetry.executions.length >= executions.length + toRetry.length &&
					afterRetry.waiting.every(({ id }) => stuck.has(id))
				);
			},
			{ everyMs: 500, timeoutMs: options.settleTimeoutMs ?? SETTLE_WAIT_MS },
		).catch(() => undefined);
		if (afterRetry.waiting.length > 0) afterRetry = await look(true);
		heldAfterRetry = withEventIds(afterRetry.executions);
	}
	const runs = ranPastTrigger(state);
	const rerunByRetry = rerunsByRetry(
		runsPastTrigger(state),
		heldAfterRetry.map(({ execution }) => execution),
	);
	const lost = ids.filter(
		(id) => answered.has(id) && (options.runsReadRanges ? !runs.has(id) : !stored.has(id)),
	);
	const stranded = options.runsReadRanges
		? []
		: ids.filter((id) => !runsBeforeRetry.has(id) && !retryable.has(id) && stored.has(id));
	const notRunAfterRetry =
		options.retry && !options.runsReadRanges
			? ids.filter((id) => answered.has(id) && stored.has(id) && !runs.has(id))
			: [];
	const ranTwice = ids.filter((id) => (runs.get(id) ?? 0) > 1 && !rerunByRetry.has(id));
	// A receiver that is not exactly once (n8n's Webhook node) runs hundreds twice: a few say why.
	const details = [
		...new Set([...lost, ...stranded, ...notRunAfterRetry, ...ranTwice.slice(0, 10)]),
	].map((id) => {
		const attempts = attemptsOf(state, id);
		const holding = heldAfterRetry
			.filter(({ eventIds }) => eventIds.has(id))
			.map(({ execution }) => describeExecution(execution));
		return `${id}: attempts [${attempts.join(', ')}], executions [${holding.join(', ')}]`;
	});
	return {
		events: ids.length,
		acknowledgedBeforeKill,
		ranBeforeKill,
		acknowledgedWithoutExecution: lost,
		ranTwice,
		rerunByRetry: ids.filter((id) => rerunByRetry.has(id)),
		retried: options.retry ? toRetry.length : 0,
		notRunAfterRetry,
		notRunPastTrigger: ids.filter((id) => !runsBeforeRetry.has(id)),
		stranded,
		crashedExecutions: burstRuns.filter((execution) => execution.status === 'crashed').length,
		stoppedLeftRunning: stoppedLeftRunning.length,
		failedExecutions: burstRuns.filter((execution) => execution.status === 'error').length,
		failedWithDataReplaced: dataReplaced,
		executions: burstRuns.length,
		stoppedOnRepeat: stopped.filter((execution) => !answeredBusy(execution)).length,
		answeredBusy: stopped.filter(answeredBusy).length,
		recoverySeconds: Math.round(recoverySeconds * 10) / 10,
		unfinished: settled.waiting.map((execution) => `${execution.id} ${execution.status}`),
		orphaned: [...settled.orphans],
		resendRounds,
		details,
	};
}
