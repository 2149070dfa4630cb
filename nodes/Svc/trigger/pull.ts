import { randomUUID } from 'node:crypto';

import type {
	IDataObject,
	IExecuteFunctions,
	IExecuteResponsePromiseData,
	INodeExecutionData,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import type { EventEnvelope, EventPage } from '../contract';
import {
	EVENT_EXPIRED_STATUS,
	EVENT_LIST_QUERY,
	EVENT_RETENTION_DAYS,
	LIST_LIMIT_MAX,
} from '../contract';
import type { SvcContext } from '../transport';
import { SvcClient, userError } from '../transport';
import { claimEvents, passOnClaimed } from './claimRecord';
import type { ClaimOutcome } from './eventClaims';
import { desiredEvents } from './lifecycle';
import type { PullPosition } from './pullPosition';
import { advancePast, currentPosition, positionQuery, resumeFromTime } from './pullPosition';

/** n8n 2.41 gives a poll a budget; n8n 1.x none. A poll drains at most this long, within it. */
export const MAX_DRAIN_MS = 45_000;
/**
 * The first poll of an activation is n8n's test poll, which publishing waits for: it reads and
 * runs for this long at most, and leaves the rest of a backlog to the next poll.
 */
export const FIRST_POLL_DRAIN_MS = 5_000;
/**
 * Fewer retries than an action, and no long waits: the next poll tries again anyway, and a
 * longer Retry-After is kept between polls instead (quietUntil).
 */
const POLL_CLIENT = { timeoutMs: 20_000, retry: { maxAttempts: 4, maxRetryAfterMs: 5_000 } };

/** Per trigger in this process: a poll under way (a tick meanwhile reads nothing), and a wait the service asked for. */
const pollsUnderWay = new Set<string>();
const quietUntil = new Map<string, number>();
/** n8n keeps one poll context per activation: the first poll on one is the activation's test poll. */
const contextsPolled = new WeakSet<object>();
/**
 * n8n 2.41's budget for a poll outside its durable scheduler. That scheduler (off by default)
 * builds a new context for every poll, with a budget of its own (its lease less a margin): such a
 * poll is never the test poll.
 */
const UNSCHEDULED_POLL_BUDGET_MS = 5 * 60_000;

function isTestPoll(ctx: IPollFunctions): boolean {
	const first = !contextsPolled.has(ctx);
	contextsPolled.add(ctx);
	// n8n 1.x has no getPollBudgetMs.
	const budget = ctx.getPollBudgetMs?.();
	return first && (budget === undefined || budget === UNSCHEDULED_POLL_BUDGET_MS);
}

function startSetting(ctx: IPollFunctions): string {
	if (ctx.getNodeParameter('startFrom', 'now') !== 'time') return 'now';
	const time = ctx.getNodeParameter('startTime', '') as string;
	if (Number.isNaN(Date.parse(time)))
		throw userError(ctx.getNode(), 'Start Time is not a date and time', {
			description: 'Pick the time from which the first run after publishing reads events.',
		});
	return new Date(time).toISOString();
}

/** The event as Svc Trigger outputs it, with `meta` saying it came by pull. */
function toItem(event: EventEnvelope, meta: IDataObject): INodeExecutionData {
	return {
		json: {
			id: event.id,
			type: event.type,
			created_at: event.created_at,
			data: event.data,
			meta: { delivery: 'pull', ...meta },
		},
	};
}

const NO_EVENT_LIST = {
	message:
		'The service has no event list (GET /v1/events answered 404), which Svc Pull Trigger reads: use Svc Trigger instead, with n8n at a public https address',
	description:
		"Svc Trigger has the service send each event to n8n, which needs WEBHOOK_URL set to this n8n's public https address. If the service should have the event list, check the credential's Base URL.",
};

type PageRead =
	| { kind: 'page'; page: EventPage }
	| { kind: 'expired' }
	/** A passing failure (429, 5xx, no answer) after the client's retries, and the wait it asks for. */
	| { kind: 'unavailable'; error: NodeApiError; waitMs: number };

async function readPage(client: SvcClient, ctx: SvcContext, query: IDataObject): Promise<PageRead> {
	// The client's errors are n8n's already (NodeApiError, NodeOperationError): kept as they are.
	const response = await client
		.request<EventPage>('listEvents', {
			qs: { [EVENT_LIST_QUERY.limit]: LIST_LIMIT_MAX, ...query },
			answerStatuses: [404, EVENT_EXPIRED_STATUS],
		})
		.catch((error: unknown) => error as Error);
	if (response instanceof Error) {
		const waitMs = transientWaitMs(response);
		if (waitMs === undefined) throw response;
		return { kind: 'unavailable', error: response as NodeApiError, waitMs };
	}
	if (response.status === 404) throw userError(ctx.getNode(), NO_EVENT_LIST.message, NO_EVENT_LIST);
	if (response.status === EVENT_EXPIRED_STATUS) return { kind: 'expired' };
	if (!Array.isArray(response.body?.data))
		throw new NodeOperationError(
			ctx.getNode(),
			'The service answered GET /v1/events without a data list',
		);
	return { kind: 'page', page: response.body };
}

/** The wait a passing failure (429, 5xx, no answer) asks for; undefined for any other error. */
function transientWaitMs(error: unknown): number | undefined {
	const failure = error instanceof NodeApiError ? error.failure : undefined;
	if (failure?.cause !== 'rate-limited' && failure?.cause !== 'temporarily-unavailable')
		return undefined;
	return failure.retryAfterMs ?? 0;
}

/**
 * How many of the executions, from the first on, said they claimed their event by `deadline`:
 * the position may move past that many events.
 */
async function claimedInOrder(claims: Array<Promise<boolean>>, deadline: number): Promise<number> {
	const claimed: Array<boolean | undefined> = claims.map(() => undefined);
	claims.forEach((claim, index) => {
		void claim.then((outcome) => {
			claimed[index] = outcome;
		});
	});
	while (claimed.includes(undefined) && Date.now() < deadline) await sleep(50);
	const firstUnclaimed = claimed.findIndex((outcome) => outcome !== true);
	return firstUnclaimed < 0 ? claimed.length : firstUnclaimed;
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

function startExecution(ctx: IPollFunctions, event: EventEnvelope): Promise<boolean> {
	const confirmation = ctx.helpers.createDeferredPromise<IExecuteResponsePromiseData>();
	// One execution per event, as Svc Trigger runs them, each named by its own pull id.
	ctx.__emit([[toItem(event, { pull_id: randomUUID() })]], confirmation);
	return confirmation.promise.then(
		(response) => (response.body as IDataObject | undefined)?.claimed === true,
		() => false,
	);
}

/**
 * Reads the event list on from the stored position, a page at a time, and starts one execution
 * per event. The position moves past an event only once its execution, stored by n8n, has
 * claimed it (runPulledEvents answers this poll from inside it); an event not confirmed in time
 * is read again at the next poll, and the claims stop what already ran. Always returns null: the
 * executions are started here, not by n8n from the return value.
 */
export async function pollEvents(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const key = `${this.getWorkflow().id} ${this.getNode().id}`;
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
 * Pages whose executions may be claiming at once: the next page is read and started while the
 * page before it settles its claims, so n8n is never idle between pages.
 */
const PAGES_IN_FLIGHT = 2;
/** Reading ahead stops this long before the poll's deadline, leaving the last pages time to claim. */
const READ_AHEAD_RESERVE_MS = 10_000;

interface StartedPage {
	events: EventEnvelope[];
	claims: Array<Promise<boolean>>;
}

async function drain(ctx: IPollFunctions, key: string, testPoll: boolean): Promise<void> {
	const now = Date.now();
	const budget = testPoll
		? FIRST_POLL_DRAIN_MS
		: // n8n 1.x has no getPollBudgetMs.
			Math.min(MAX_DRAIN_MS, ctx.getPollBudgetMs?.() ?? MAX_DRAIN_MS);
	const deadline = now + budget;
	const client = await SvcClient.connect(ctx, POLL_CLIENT);
	const staticData = ctx.getWorkflowStaticData('node');
	let position: PullPosition = currentPosition(staticData, startSetting(ctx), now);
	let readFrom = positionQuery(position);
	const types = desiredEvents(ctx).join(',');
	const started = startedHere.get(key) ?? new Map<string, StartedExecution>();
	startedHere.set(key, started);
	const inFlight: StartedPage[] = [];
	let more = true;
	let passing: NodeApiError | undefined;
	for (;;) {
		const mayRead =
			inFlight.length === 0
				? Date.now() < deadline
				: inFlight.length < PAGES_IN_FLIGHT && Date.now() < deadline - READ_AHEAD_RESERVE_MS;
		if (more && mayRead) {
			const read = await readPage(client, ctx, { [EVENT_LIST_QUERY.types]: types, ...readFrom });
			if (read.kind === 'unavailable') {
				quietUntil.set(key, Date.now() + read.waitMs);
				passing = read.error;
				more = false;
			} else if (read.kind === 'expired' && inFlight.length === 0) {
				warnGap(ctx, position);
				position = resumeFromTime(staticData, position);
				readFrom = positionQuery(position);
			} else if (read.kind === 'expired') {
				// Expired between two reads ahead: settle what runs, and the next poll resumes.
				more = false;
			} else {
				const { data, has_more: hasMore } = read.page;
				if (data.length > 0) {
					inFlight.push({
						events: data,
						claims: data.map((event) => startOnce(ctx, started, event)),
					});
					readFrom = { [EVENT_LIST_QUERY.after]: data[data.length - 1].id };
				}
				more = hasMore && data.length > 0;
			}
			continue;
		}
		const page = inFlight.shift();
		if (page === undefined) break;
		const claimed = await claimedInOrder(page.claims, deadline);
		for (const event of page.events.slice(0, claimed)) started.delete(event.id);
		if (claimed > 0) position = advancePast(staticData, position, page.events[claimed - 1]);
		if (claimed < page.events.length) {
			ctx.logger.debug(
				`Svc Pull Trigger ${key}: events from ${page.events[claimed].id} on were not claimed within the poll; the next poll reads them again`,
			);
			break;
		}
	}
	if (passing === undefined) return;
	// Publishing must not fail on a passing answer: the next poll reads again.
	if (!testPoll) throw passing;
	ctx.logger.warn(
		`Svc Pull Trigger "${ctx.getNode().name}" in workflow "${ctx.getWorkflow().name ?? ''}" (${ctx.getWorkflow().id ?? ''}) could not read the service while publishing (${passing.message}); the next poll reads again`,
	);
}

/**
 * The claim of an execution started for `event`: one this process started earlier and has not
 * heard from for less than STALE_START_MS, or a new one. A failed claim is started again at the
 * next read.
 */
function startOnce(
	ctx: IPollFunctions,
	started: Map<string, StartedExecution>,
	event: EventEnvelope,
): Promise<boolean> {
	const earlier = started.get(event.id);
	if (earlier !== undefined && Date.now() - earlier.at < STALE_START_MS) return earlier.claim;
	const claim = startExecution(ctx, event);
	started.set(event.id, { claim, at: Date.now() });
	void claim.then((made) => made || started.delete(event.id));
	return claim;
}

/** A 410: the position is older than the service keeps. Said loudly, with the span that may be missing. */
function warnGap(ctx: IPollFunctions, position: PullPosition): void {
	const workflow = ctx.getWorkflow();
	ctx.logger.warn(
		`Svc Pull Trigger "${ctx.getNode().name}" in workflow "${workflow.name ?? ''}" (${workflow.id ?? ''}): the service no longer keeps event ${position.after ?? ''}, the last one this trigger ran (created ${position.afterCreatedAt ?? 'at an unknown time'}). Events created from then until ${EVENT_RETENTION_DAYS} days ago may be missing; reading on from ${position.afterCreatedAt ?? 'the oldest event kept'}.`,
	);
}

/** "Fetch Test Event": the newest event of the chosen kinds, looking back an hour, a day, then 30 days. */
async function newestEvent(ctx: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const client = await SvcClient.connect(ctx, POLL_CLIENT);
	const kinds = desiredEvents(ctx);
	const hour = 60 * 60 * 1000;
	for (const windowMs of [hour, 24 * hour, EVENT_RETENTION_DAYS * 24 * hour]) {
		let query: IDataObject = {
			[EVENT_LIST_QUERY.createdAfter]: new Date(Date.now() - windowMs).toISOString(),
		};
		let newest: EventEnvelope | undefined;
		// A busy window is read for 50 pages at most; the newest of those is recent enough for a test.
		for (let pages = 0; pages < 50; pages++) {
			const read = await readPage(client, ctx, {
				[EVENT_LIST_QUERY.types]: kinds.join(','),
				...query,
			});
			if (read.kind === 'unavailable') throw read.error;
			if (read.kind === 'expired') break;
			newest = read.page.data[read.page.data.length - 1] ?? newest;
			if (!read.page.has_more || newest === undefined) break;
			query = { [EVENT_LIST_QUERY.after]: newest.id };
		}
		if (newest) return [toItem(newest, { test: true })];
	}
	throw userError(
		ctx.getNode(),
		`No ${kinds.join(' or ')} event in the last ${EVENT_RETENTION_DAYS} days to show`,
		{
			description:
				'Make one happen in the service (for lead.created, create a lead), then fetch a test event again.',
		},
	);
}

/**
 * The trigger's step inside the execution: its event, claimed in n8n's record shared
 * by the workflow's Svc triggers. A repeat (read again after a crash or a slow poll, or delivered
 * by webhook too) stops here; the poll hears from here that the event is claimed. A person's Retry
 * runs the event if this execution had claimed it, and not if another execution ran it.
 */
export async function runPulledEvents(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const mode = this.getMode();
	if (mode === 'manual') return [await newestEvent(this)];
	const items = this.getInputData();
	if (mode !== 'trigger' && mode !== 'retry') return [items];
	const pullId = (items[0]?.json.meta as IDataObject | undefined)?.pull_id;
	// Items are events this trigger emitted: each has a string id.
	const eventIds = items.map((item) => item.json.id as string);
	let outcomes: ClaimOutcome[] = [];
	let claimed = false;
	try {
		outcomes = await claimEvents(
			this,
			eventIds,
			typeof pullId === 'string' ? pullId : this.getExecutionId(),
		);
		claimed = true;
	} catch (error) {
		throw new NodeOperationError(this.getNode(), error as Error, {
			description:
				'This execution keeps the events: retry it once the other n8n processes are less busy. The next poll reads them again too.',
		});
	} finally {
		if (mode === 'trigger')
			await this.sendResponse({ statusCode: 200, headers: {}, body: { claimed } });
	}
	return passOnClaimed(
		this,
		items,
		outcomes,
		'This event already ran in another execution (read again, or delivered by webhook too), so this execution stops at the trigger',
	);
}
