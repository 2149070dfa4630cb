import { randomUUID } from 'node:crypto';

import type { INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { EventEnvelope } from '../../contract';
import { EVENT_LIST_QUERY, EVENT_RETENTION_DAYS } from '../../contract';
import { desiredEvents } from '../../shared/subscription';
import { SvcClient, userError } from '../../transport';
import type { PullContext } from '../eventList';
import { eventsPerExecution, isPoll, POLL_CLIENT, readPage } from '../eventList';
import type { ExecutionSlots } from '../exactlyOnce/executionSlots';
import {
	triggerExecutionSlots,
	triggerKey,
	UNFINISHED_EXECUTIONS_MAX,
} from '../exactlyOnce/executionSlots';
import { claimedInOrder, ClaimedPrefix } from './claimedPrefix';
import { emitRun } from './emittedRun';
import { claimScope } from '../exactlyOnce/claimRecord';
import { eventClaims } from '../exactlyOnce/eventClaims';
import type { PositionSource, PullPosition } from './pullPosition';
import { advancePast, currentPosition, positionQuery, resumeFromTime } from './pullPosition';

/** n8n 2.41 gives a poll a budget; n8n 1.x none. A poll drains at most this long, within it. */
export const MAX_DRAIN_MS = 45_000;
/**
 * The first poll of an activation is n8n's test poll, which publishing waits for: it reads and
 * runs for this long at most, and leaves the rest of a backlog to the next poll.
 */
export const FIRST_POLL_DRAIN_MS = 5_000;

/** Per trigger in this process: a poll under way (a tick meanwhile reads nothing), and a wait the service asked for. */
const pollsUnderWay = new Set<string>();
const quietUntil = new Map<string, number>();
/**
 * Per trigger in this process: where this process last moved its position. n8n stores a poll
 * node's static data only when the poll starts an execution (and after the poll at publishing),
 * so what it stored lags the last claims of a poll, and unpublishing drops what it had not stored:
 * publishing again would read those events again. A poll reads on from here when this reads past
 * what n8n stored (also with n8n 2.41's durable poll cursors, which do not store what the poll at
 * publishing moved). Held in memory only: after a restart n8n's stored position is all there is.
 */
const positionsHere = new Map<string, PullPosition>();
const POSITION_SOURCES: Record<PositionSource, string> = {
	stored: "n8n's stored position",
	here: "this process's last position, which n8n had not stored",
	start: 'the start',
};
/**
 * Per trigger: whether its executions claim in this process (n8n's regular mode), as their answers
 * last said. Unknown counts as yes.
 */
const claimsHere = new Map<string, boolean>();
/** n8n keeps one poll context per activation: the first poll on one is the activation's test poll. */
const contextsPolled = new WeakSet<object>();
/**
 * n8n 2.41's budget for a poll outside its durable scheduler. That scheduler (off by default)
 * builds a new context for every poll, with a budget of its own (its lease less a margin): such a
 * poll is never the test poll.
 */
const UNSCHEDULED_POLL_BUDGET_MS = 5 * 60_000;

function isTestPoll(ctx: PullContext): boolean {
	// Svc Trigger's runner: n8n does not wait on it when publishing.
	if (!isPoll(ctx)) return false;
	const first = !contextsPolled.has(ctx);
	contextsPolled.add(ctx);
	// n8n 1.x has no getPollBudgetMs.
	const budget = ctx.getPollBudgetMs?.();
	return first && (budget === undefined || budget === UNSCHEDULED_POLL_BUDGET_MS);
}

function startSetting(ctx: PullContext): string {
	if (ctx.getNodeParameter('startFrom', 'now') !== 'time') return 'now';
	const time = ctx.getNodeParameter('startTime', '') as string;
	if (Number.isNaN(Date.parse(time)))
		throw userError(ctx.getNode(), 'Start Time is not a date and time', {
			description: 'Pick the time from which the first run after publishing reads events.',
		});
	return new Date(time).toISOString();
}

/** An execution this process started for an event: whether it claimed the event, and when it started. */
interface StartedExecution {
	claim: Promise<boolean>;
	at: number;
}

/**
 * The executions this process started for a trigger's events and the position has not passed
 * yet, by event id: whether each claimed its event, and when it started. A page read again (its
 * executions were slow to answer) waits for them instead of starting the same events again,
 * unless one has said nothing for STALE_START_MS (its process may have died: queue mode).
 */
const startedHere = new Map<string, Map<string, StartedExecution>>();
const STALE_START_MS = 2 * 60_000;

/**
 * One execution with `events` as its items, named by one pull id: whether it claimed them. It
 * starts once one of `slots` is free and `allowed` says yes (false: it never starts), and holds
 * the slot until it ends.
 */
async function startExecution(
	ctx: PullContext,
	events: EventEnvelope[],
	slots: ExecutionSlots,
	allowed: Promise<boolean>,
): Promise<boolean> {
	const free = await slots.take();
	if (!(await allowed)) {
		free();
		return false;
	}
	const { answer, ended } = emitRun(ctx, events, randomUUID());
	void ended.then(free);
	const body = await answer;
	if (body === undefined) {
		// Not stored (it never runs), or ended with no claim known (answerFromRunData): read again.
		free();
		return false;
	}
	claimsHere.set(triggerKey(ctx), body.here !== false);
	return body.claimed === true;
}

/**
 * Reads the event list on from the stored position, a page at a time, and starts one execution
 * per event, or one per batch of events in batch mode. The position moves past an event only
 * once its execution, stored by n8n, has claimed it (runPulledEvents answers this poll from
 * inside it); an event not confirmed in time is read again at the next poll, and the claims stop
 * what already ran. Always returns null: the executions are started here, not by n8n from the
 * return value.
 */
export async function pollEvents(this: PullContext): Promise<INodeExecutionData[][] | null> {
	const key = triggerKey(this);
	const testPoll = isTestPoll(this);
	if (pollsUnderWay.has(key) || Date.now() < (quietUntil.get(key) ?? 0)) return null;
	// A new activation reads from its stored position and starts what it reads.
	if (testPoll) startedHere.delete(key);
	pollsUnderWay.add(key);
	try {
		await drain(this, key, testPoll);
	} finally {
		pollsUnderWay.delete(key);
	}
	return null;
}

/**
 * Runs whose executions may be claiming at once, one execution per event: two pages of
 * executions. The next page is read and started while the one before settles its claims, so n8n
 * is never idle between them.
 */
const PAGES_IN_FLIGHT = 2;
/**
 * Batch mode: about this many events in runs unfinished at once, in whole batches (at least two),
 * each run holding a slot until it ends: a crash leaves at most these batches' runs for a person to
 * Retry. In queue mode a claim stands only after its 2 s settle whatever the batch's size, so the
 * batches in flight set the drain rate there: 8 batches of 100 drained a 5,000-event backlog at
 * 175/s where 4 drained 99/s (2 cores, with the settle).
 */
const BATCHED_EVENTS_IN_FLIGHT = 800;

function runsInFlight(perExecution: number): number {
	return perExecution === 1
		? PAGES_IN_FLIGHT
		: Math.max(2, Math.ceil(BATCHED_EVENTS_IN_FLIGHT / perExecution));
}
/** Reading ahead stops this long before the poll's deadline, leaving the last runs time to claim. */
const READ_AHEAD_RESERVE_MS = 10_000;

/** Events started together, in order, and each one's claim as it comes in. */
interface StartedRun {
	events: EventEnvelope[];
	claimed: Array<boolean | undefined>;
}

async function drain(ctx: PullContext, key: string, testPoll: boolean): Promise<void> {
	const now = Date.now();
	const budget = testPoll
		? FIRST_POLL_DRAIN_MS
		: // n8n 1.x has no getPollBudgetMs.
			Math.min(MAX_DRAIN_MS, (isPoll(ctx) ? ctx.getPollBudgetMs?.() : undefined) ?? MAX_DRAIN_MS);
	const deadline = now + budget;
	const client = await SvcClient.connect(ctx, POLL_CLIENT);
	const staticData = ctx.getWorkflowStaticData('node');
	const start = startSetting(ctx);
	const current = currentPosition(staticData, start, now, positionsHere.get(key));
	const keep = (position: PullPosition): PullPosition => {
		positionsHere.set(key, position);
		return position;
	};
	const prefix: ClaimedPrefix = new ClaimedPrefix(keep(current.position), (event): PullPosition =>
		keep(advancePast(staticData, prefix.position, event)),
	);
	let readFrom = positionQuery(prefix.position);
	ctx.logger.debug(
		`Svc Pull Trigger ${key}: ${testPoll ? 'the test poll' : 'a poll'} reads from ${JSON.stringify(readFrom)} (${POSITION_SOURCES[current.from]})`,
	);
	const types = desiredEvents(ctx).join(',');
	const perExecution = eventsPerExecution(ctx);
	const maxInFlight = runsInFlight(perExecution);
	// Every run holds a slot until it ends: 20 executions one per event, the batches in flight in
	// batch mode. A crash cuts short at most that many, however fast the claims stand.
	const slots = triggerExecutionSlots(
		ctx,
		now,
		perExecution === 1 ? UNFINISHED_EXECUTIONS_MAX : maxInFlight,
	);
	const started = startedHere.get(key) ?? new Map<string, StartedExecution>();
	startedHere.set(key, started);
	// At most `window` events started and not passed by the position at once, so that n8n, which
	// stores the position with each execution started, has at most that many claimed events past it
	// when n8n dies: 20 one per event; in batch mode, where the executions claim in this process, a
	// batch starts once every event before it is passed (a crash reads one claimed batch again).
	// In queue mode each claim waits 2 s, and the batches go side by side, bounded by their slots.
	const window =
		perExecution === 1 ? UNFINISHED_EXECUTIONS_MAX : claimsHere.get(key) !== false ? 1 : undefined;
	const mayStart = async (index: number): Promise<boolean> =>
		window === undefined ? true : await prefix.whenPassed(index - window + 1);
	const inFlight: StartedRun[] = [];
	// Events read and not started yet: batch mode fills a batch across pages.
	const unstarted: EventEnvelope[] = [];
	let more = true;
	let passing: NodeApiError | undefined;
	for (;;) {
		// One event per execution starts a page as one run; batch mode starts a run per full batch,
		// and the last short one once nothing more is to be read.
		while (
			inFlight.length < maxInFlight &&
			(unstarted.length >= perExecution || (!more && unstarted.length > 0))
		) {
			const events = unstarted.splice(0, perExecution === 1 ? unstarted.length : perExecution);
			const first = prefix.next;
			const claims = startRun(
				ctx,
				started,
				events,
				perExecution,
				slots,
				async (index) => await mayStart(first + index),
			);
			inFlight.push({ events, claimed: prefix.add(events, claims) });
		}
		const mayRead =
			unstarted.length < perExecution &&
			(inFlight.length === 0
				? Date.now() < deadline
				: inFlight.length < maxInFlight && Date.now() < deadline - READ_AHEAD_RESERVE_MS);
		if (more && mayRead) {
			const read = await readPage(client, ctx, { [EVENT_LIST_QUERY.types]: types, ...readFrom });
			if (read.kind === 'unavailable') {
				quietUntil.set(key, Date.now() + read.waitMs);
				passing = read.error;
				more = false;
			} else if (read.kind === 'expired' && inFlight.length === 0 && unstarted.length === 0) {
				reportGap(ctx, prefix.position);
				prefix.position = keep(resumeFromTime(staticData, prefix.position));
				readFrom = positionQuery(prefix.position);
			} else if (read.kind === 'expired') {
				// Expired between two reads ahead: settle what runs, and the next poll resumes.
				more = false;
			} else {
				const { data, has_more: hasMore } = read.page;
				if (data.length > 0) {
					unstarted.push(...data);
					readFrom = { [EVENT_LIST_QUERY.after]: data[data.length - 1].id };
				}
				more = hasMore && data.length > 0;
			}
			continue;
		}
		const run = inFlight.shift();
		if (run === undefined) break;
		const claimed = await claimedInOrder(run.claimed, deadline);
		for (const event of run.events.slice(0, claimed)) started.delete(event.id);
		if (claimed < run.events.length) {
			ctx.logger.debug(
				`Svc Pull Trigger ${key}: events from ${run.events[claimed].id} on were not claimed within the poll; the next poll reads them again`,
			);
			break;
		}
	}
	prefix.close();
	if (passing === undefined) return;
	// Publishing must not fail on a passing answer: the next poll reads again.
	if (!testPoll) throw passing;
	ctx.logger.warn(
		`Svc Pull Trigger "${ctx.getNode().name}" in workflow "${ctx.getWorkflow().name ?? ''}" (${ctx.getWorkflow().id ?? ''}) could not read the service while publishing (${passing.message}); the next poll reads again`,
	);
}

/**
 * Starts `events` (in order), `perExecution` to an execution (each in a slot of `slots`, once
 * `mayStart` says so for its first event's index), and returns each event's claim. An event
 * claimed in this process already (by Svc Trigger in the same workflow, or by an earlier run read
 * again) starts nothing: its claim is that one. So does an event this process started earlier and
 * has heard from within STALE_START_MS. A failed claim is started again at the next read.
 */
function startRun(
	ctx: PullContext,
	started: Map<string, StartedExecution>,
	events: EventEnvelope[],
	perExecution: number,
	slots: ExecutionSlots,
	mayStart: (index: number) => Promise<boolean>,
): Array<Promise<boolean>> {
	const claims: Array<Promise<boolean>> = [];
	const fresh: number[] = [];
	const scope = claimScope(ctx);
	const now = Date.now();
	events.forEach((event, index) => {
		const earlier = started.get(event.id);
		const claimed =
			earlier !== undefined && now - earlier.at < STALE_START_MS
				? earlier.claim
				: eventClaims.claimedHere(scope, event.id, now)?.stood;
		if (claimed !== undefined) claims[index] = claimed;
		else fresh.push(index);
	});
	for (let from = 0; from < fresh.length; from += perExecution) {
		const batch = fresh.slice(from, from + perExecution);
		const claim = startExecution(
			ctx,
			batch.map((index) => events[index]),
			slots,
			mayStart(batch[0]),
		);
		const at = Date.now();
		for (const index of batch) {
			claims[index] = claim;
			started.set(events[index].id, { claim, at });
			// A delivery of the event meanwhile leaves it to this claim: the position does not pass
			// the event until a claim of it stands.
			eventClaims.announce(scope, events[index].id, claim, at, { kept: true });
		}
		void claim.then((made) => {
			if (!made) for (const index of batch) started.delete(events[index].id);
		});
	}
	return claims;
}

/**
 * A 410: the position is older than the service keeps. Said in n8n's log and as a failed execution
 * in the workflow's Executions list (which runs its Error Workflow), with the span that may be
 * missing; the poll reads on.
 */
function reportGap(ctx: PullContext, position: PullPosition): void {
	const workflow = ctx.getWorkflow();
	const node = ctx.getNode();
	const span = `Events created from ${position.afterCreatedAt ?? 'an unknown time'} (after event ${position.after ?? 'none'}) until ${EVENT_RETENTION_DAYS} days ago may be missing`;
	ctx.logger.warn(
		`Svc Pull Trigger "${node.name}" in workflow "${workflow.name ?? ''}" (${workflow.id ?? ''}): the service no longer keeps event ${position.after ?? ''}, the last one this trigger ran (created ${position.afterCreatedAt ?? 'at an unknown time'}). ${span}; reading on from ${position.afterCreatedAt ?? 'the oldest event kept'}.`,
	);
	emitGap(
		ctx,
		new NodeOperationError(
			node,
			`The service no longer keeps the events "${node.name}" of workflow "${workflow.name ?? workflow.id ?? ''}" had not read yet. ${span}.`,
			{
				description: `The workflow was unpublished, or n8n was down, for longer than the service keeps events (${EVENT_RETENTION_DAYS} days). The trigger has read on from the oldest event kept. The events themselves cannot be read again: check what they were about in the service (Svc: Lead > Get Many lists every lead) for what this workflow missed.`,
			},
		),
	);
}

/**
 * A poll's error becomes a failed execution; a trigger's emitError would unpublish the workflow, so
 * Svc Trigger's runner saves it as a failed execution where n8n can (2.x), and leaves it to the log
 * line above on n8n 1.x.
 */
function emitGap(ctx: PullContext, error: NodeOperationError): void {
	if (isPoll(ctx)) ctx.__emitError(error);
	else (ctx as Partial<Pick<typeof ctx, 'saveFailedExecution'>>).saveFailedExecution?.(error);
}
