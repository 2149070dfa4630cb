/* eslint-disable @n8n/community-nodes/no-restricted-globals -- tooling that runs in Node.js beside n8n, never inside it */
/** How large the crash tests' bursts and backlogs are: CI's, or the operator's on demand. */
import type { KillMidBurstResult } from './kill-mid-burst';

/**
 * `SVC_REPRODUCE=1` (`npm run test:reproduce`): the crash tests at the operator's sizes, as the
 * figures in docs/reliability.md and docs/queue-mode.md were measured. Otherwise (`npm run
 * test:all`, CI) at the smallest sizes at which the kill still lands with work in flight.
 */
export const REPRODUCING = process.env.SVC_REPRODUCE === '1';

/**
 * The burst: the operator's 600 distinct events 16 at a time, the kill once 250 were answered 2xx;
 * or 150, the kill at 60. Then 16 deliveries are open and unanswered, and answered runs unfinished
 * (each lives WORK_AFTER_TRIGGER_SECONDS past its answer in regular mode, its claim's 2 s settle in
 * queue mode): `killMissedTheBurst` checks the first.
 */
export const CRASH_BURST = REPRODUCING
	? { events: 600, concurrency: 16, killAfterAcknowledged: 250 }
	: { events: 150, concurrency: 16, killAfterAcknowledged: 60 };

/**
 * Executions a queue-mode kill may spend on events that had already run (issue 73's bound): copies
 * sent again because their answers were lost. A restarted webhook processor learns the claims from
 * the workers' answers (claimsReport.ts), so about the service's first round of open deliveries
 * (CRASH_BURST.concurrency) still start one. Executions that answered 503 from inside for want of
 * room are counted apart (`answeredBusy`): their events had not run.
 */
export const KILL_REPEAT_EXECUTIONS_MAX = 20;

/**
 * Svc Trigger in batches of 50: a batch reads the events the service created, delivered yet or
 * not, so answers come about 50 at a time; killed once 200 were answered, batches are claimed and
 * under way (each holds its events WORK_AFTER_TRIGGER_SECONDS past its trigger). The operator's
 * 1,000 events, or 500: the 300 unanswered at the kill are still 6 batches, and after the restart
 * the service sends 300 again instead of 800 (about 10 a second, n8n's request rate).
 */
export const CRASH_BURST_IN_BATCHES = {
	events: REPRODUCING ? 1_000 : 500,
	concurrency: 16,
	killAfterAcknowledged: 200,
};

/**
 * A pull trigger's backlogs, the kill once `killAfterRan` of it ran. One per event, 20 executions
 * are unfinished at any time while it drains, so 250 killed at 20 run (the operator's 600 at 200)
 * cuts short up to 20. In batches of 50, about 800 events claim at once and end together, so the
 * backlog is 1,000, where later batches start as the first ones end. Either way the recovery test
 * then waits for a run under way holding none of the events that ran, and kills n8n before its
 * work ends (WORK_AFTER_TRIGGER_SECONDS).
 * The tests check that part of the backlog had not run at the kill.
 */
export const CRASH_BACKLOG = {
	onePerEvent: REPRODUCING ? { events: 600, killAfterRan: 200 } : { events: 250, killAfterRan: 20 },
	inBatches: { events: 1_000, killAfterRan: 200 },
	/**
	 * A queue-mode worker killed with runs of its own under way, one per event: how long n8n takes
	 * to end a dead worker's runs (its lock, its stalled check, then 30 s of rechecks on 2.41) sets
	 * the test's length more than the backlog, so 100 in CI.
	 */
	workerKilled: REPRODUCING
		? { events: 600, killAfterRan: 200 }
		: { events: 100, killAfterRan: 20 },
};

/**
 * In n8n's regular mode an event's claim stands as soon as it is written (one process writes n8n's
 * record), so a run lasts as long as the work after its trigger. The crash tests give both triggers'
 * runs 2 s of it (a Wait node): a kill then finds runs that claimed their events and have not run
 * them, one per event (up to 20 at once) and in batches. Without it a Svc Trigger run ends moments
 * after its answer, and a kill once found none to cut short (CI, 2026-12-02, n8n 2.41).
 */
export const WORK_AFTER_TRIGGER_SECONDS = 2;

/** Why the kill did not land in the middle of the burst (empty when it did). */
export function killMissedTheBurst(result: KillMidBurstResult): string[] {
	const { acknowledgedBeforeKill: answered } = result;
	const problems: string[] = [];
	if (answered < CRASH_BURST.killAfterAcknowledged)
		problems.push(`only ${answered} answered before the kill`);
	if (answered >= CRASH_BURST.events) problems.push(`all ${answered} answered before the kill`);
	return problems;
}
