import type { KeyObject } from 'node:crypto';
import { randomUUID } from 'node:crypto';

import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import type { EventEnvelope } from '../../contract';
import { EVENT_SIGNATURE } from '../../contract';
import { desiredEvents } from '../../shared/subscription';
import { warnAtMostEveryMinute } from '../../shared/warnings';
import { claimEvents, claimFailed, claimScope, passOnClaimed } from '../exactlyOnce/claimRecord';
import { claimsReport, learnFromAnswer } from './claimsReport';
import type { BatchStart } from './deliveredBatch';
import { batchClaimed, batchStartOf, batchTurn, readBatch } from './deliveredBatch';
import { eventListRunners, eventsPerExecution, runsFromEventList, toItem } from '../eventList';
import { executionPlace } from '../exactlyOnce/executionPlace';
import type { ClaimOutcome } from '../exactlyOnce/eventClaims';
import {
	triggerExecutionSlots,
	triggerKey,
	UNFINISHED_EXECUTIONS_MAX,
} from '../exactlyOnce/executionSlots';
import type { StoredSubscription } from './lifecycle';
import { credentialApiKey, storedSubscription } from './lifecycle';
import {
	announceReceipt,
	earlierCopy,
	keepReceipt,
	receivedHere,
	roomFor,
	settleReceipt,
} from './receipts';
import { openedKeys } from './sealedSecret';
import { verifyDelivery } from './signature';

/** Events are small; anything larger is refused before any HMAC work is spent on it. */
export const MAX_DELIVERY_BYTES = 1024 * 1024;

function headerValue(headers: IDataObject, name: string): string | undefined {
	const value = headers[name];
	if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
	return typeof value === 'string' ? value : undefined;
}

function isEnvelope(value: unknown): value is EventEnvelope {
	if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
	const event = value as Partial<EventEnvelope>;
	return (
		typeof event.id === 'string' &&
		event.id !== '' &&
		typeof event.type === 'string' &&
		event.type !== ''
	);
}

/** Answers the delivery itself and starts no execution. */
function answer(ctx: IWebhookFunctions, status: number, body: IDataObject): IWebhookResponseData {
	ctx.getResponseObject().status(status).json(body);
	return { noWebhookResponse: true };
}

/**
 * The subscription's HMAC key, opened once per process with the credential's API key. After
 * the key was changed in the credential it no longer opens: say so in the log (a delivery that
 * cannot be verified must not fail silently) and how to recover.
 */
async function signingKey(
	ctx: IWebhookFunctions,
	subscription: StoredSubscription,
): Promise<KeyObject | undefined> {
	const cached = openedKeys.get(subscription.sealedSecret);
	if (cached) return cached;
	// A credential that cannot be read or holds a malformed key opens nothing either.
	const apiKey = await credentialApiKey(ctx).catch(() => undefined);
	const key =
		apiKey === undefined
			? undefined
			: openedKeys.open(apiKey, subscription.id, subscription.sealedSecret);
	if (!key) {
		warnAtMostEveryMinute(
			ctx,
			subscription.sealedSecret,
			Date.now(),
			() =>
				`Svc Trigger "${ctx.getNode().name}" in workflow ${ctx.getWorkflow().id} cannot verify deliveries: its signing secret does not open with the credential's API key, which was changed or is malformed since the workflow was published. Deliveries are answered 503 (the service retries them). Unpublish and publish the workflow again (n8n 1.x: deactivate and activate) to subscribe with the current key.`,
		);
	}
	return key;
}

/**
 * One delivery, where n8n receives it: verify the signature over the raw body, parse, and drop
 * kinds this trigger did not subscribe to and repeats this process knows. Each of those is answered
 * here and starts nothing; a verified, subscribed event goes on to an execution, which answers it.
 */
export async function receiveDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const request = this.getRequestObject();
	const headers = this.getHeaderData() as IDataObject;
	const staticData = this.getWorkflowStaticData('node');
	const subscription = storedSubscription(staticData);
	if (!subscription) return answer(this, 401, { error: 'This trigger has no active subscription' });

	const rawBody: Buffer | undefined = (request as { rawBody?: Buffer }).rawBody;
	if ((rawBody?.length ?? 0) > MAX_DELIVERY_BYTES)
		return answer(this, 413, { error: `The body is larger than ${MAX_DELIVERY_BYTES} bytes` });
	const contentType = headerValue(headers, 'content-type') ?? '';
	if (!/^application\/json\s*(;|$)/i.test(contentType))
		return answer(this, 415, { error: 'Deliveries must have Content-Type: application/json' });
	const delivery = {
		id: headerValue(headers, EVENT_SIGNATURE.idHeader),
		timestamp: headerValue(headers, EVENT_SIGNATURE.timestampHeader),
		signature: headerValue(headers, EVENT_SIGNATURE.signatureHeader),
	};
	const key = await signingKey(this, subscription);
	if (!key)
		return answer(this, 503, {
			error: 'This trigger cannot verify deliveries until its workflow is published again',
		});
	const verification = verifyDelivery(
		key,
		delivery,
		rawBody ?? Buffer.alloc(0),
		Math.floor(Date.now() / 1000),
	);
	if (!verification.valid) {
		this.logger.debug(`Svc Trigger refused a delivery: ${verification.reason}`);
		return answer(this, 401, { error: 'Invalid signature', reason: verification.reason });
	}

	let event: unknown;
	try {
		event = JSON.parse((rawBody ?? Buffer.alloc(0)).toString('utf8'));
	} catch {
		return answer(this, 400, { error: 'The body is not valid JSON' });
	}
	if (!isEnvelope(event))
		return answer(this, 400, { error: 'The body is not an event with an id and a type' });
	if (event.id !== delivery.id)
		return answer(this, 400, { error: 'The event id does not match the webhook-id header' });

	if (!desiredEvents(this).includes(event.type))
		return answer(this, 200, { received: true, ignored: true });
	// A repeat this process has seen taken by an execution is answered without one. Test listens
	// are never claimed (see runDelivery).
	const claimed = this.getMode() !== 'manual';
	// Run from the event list: the main runs each listed event (eventListRunner.ts), not this process.
	if (claimed && runsFromEventList(this)) {
		eventListRunners.wake(triggerKey(this));
		return answer(this, 200, { received: true });
	}
	const scope = claimScope(this);
	const earlier = claimed ? await earlierCopy(scope, event.id) : 'none';
	if (earlier === 'taken') return answer(this, 200, { received: true, duplicate: true });
	// Answered without an execution: the service sends it again, by when the earlier one has claimed.
	if (earlier === 'receiving') {
		this.getResponseObject().set('retry-after', String(RECEIVING_RETRY_AFTER_SECONDS));
		return answer(this, 503, {
			error: 'An earlier delivery of this event is still being received; send it again later',
		});
	}
	const receiptId = randomUUID();
	const trigger = triggerKey(this);
	// Many, where executions of the workflow run in this process (n8n's regular mode): a batch
	// under way may hold the event already. Elsewhere (a queue-mode webhook processor, whose
	// deliveries workers run) each delivery runs alone, so that no stored execution, nor its Retry,
	// reads a batch the process running it never heard of. After a start the first delivery runs
	// alone and its execution tells; those arriving meanwhile wait for that.
	let batch: BatchStart | undefined;
	const perExecution = claimed ? eventsPerExecution(this) : 1;
	const place = perExecution > 1 ? await executionPlace.forBatch(scope, PLACE_WAIT_MS) : undefined;
	// While it waited to learn the place, a worker's answer through this process may have named the
	// event's claim (claimsReport.ts): then this copy needs no execution either.
	if (place === undefined && perExecution > 1 && (await earlierCopy(scope, event.id)) === 'taken')
		return answer(this, 200, { received: true, duplicate: true });
	if (place === 'here') {
		const turn = await batchTurn(trigger, scope, event.id, receiptId, perExecution, ANSWER_WAIT_MS);
		if (turn.kind === 'taken') return answer(this, 200, { received: true });
		if (turn.kind === 'lead') batch = turn.start;
		// Not claimed in time: the service's next try finds it claimed.
		else return busy(this);
	}
	// n8n 2.x: the trigger's answered executions fill its slots; answered 503 here, a delivery
	// costs no execution (the service sends it again).
	const room = claimed ? await roomFor(this, scope, slotCount(batch)) : { slot: undefined };
	if (room === undefined) {
		batchClaimed(trigger, receiptId);
		if (place === 'probe') executionPlace.probeEnded(scope);
		return busy(this);
	}
	if (claimed) announceReceipt(scope, event.id, receiptId, room.slot);

	const options = this.getNodeParameter('options', {}) as IDataObject;
	const output: IDataObject = {
		id: event.id,
		type: event.type,
		created_at: event.created_at,
		data: event.data,
		meta: {
			delivery: 'webhook',
			verified: true,
			webhook_id: delivery.id,
			webhook_timestamp: Number(delivery.timestamp),
			// Names this receipt's claim: n8n stores it with the execution, so a Retry of the
			// execution knows its own claim from another execution's claim of the same event.
			receipt_id: receiptId,
			...(batch
				? { batch: { size: batch.size, ...(batch.after ? { after: batch.after } : {}) } }
				: {}),
			...(headerValue(headers, 'webhook-attempt')
				? { attempt: Number(headerValue(headers, 'webhook-attempt')) }
				: {}),
		},
	};
	if (options.includeHeaders === true) output.headers = headers;
	if (claimed) learnFromAnswer(this, scope);
	// Not answered here: n8n stores the execution first, then runDelivery answers from inside it.
	return { workflowData: [[{ json: output }]] };
}

/** What a 503 for want of room tells the service, from receipt or from inside the execution. */
const BUSY_ERROR = 'Too many events of this trigger are still running; send this one again later';

/** Answered 503 without an execution: the trigger has no room now, and the service sends the event again. */
function busy(ctx: IWebhookFunctions): IWebhookResponseData {
	ctx.getResponseObject().set('retry-after', String(ANSWER_WAIT_MS / 1000));
	return answer(ctx, 503, {
		error: BUSY_ERROR,
	});
}

/**
 * Unfinished executions of the trigger at once in this process: batches hold up to Batch Size
 * events each, so fewer of them, and a crash leaves at most that many runs for a person's Retry.
 */
const BATCH_RUNS_MAX = 4;
const slotCount = (batch: BatchStart | undefined): number =>
	batch ? BATCH_RUNS_MAX : UNFINISHED_EXECUTIONS_MAX;

/**
 * How long a delivery waits for the first one's execution to tell where executions run: one that
 * starts later (n8n busy, or queue mode, where it never runs here) costs the waiting ones an
 * execution each, not a late answer.
 */
const PLACE_WAIT_MS = 2_000;

/** What a 503 for a copy still being received asks the service to wait. */
const RECEIVING_RETRY_AFTER_SECONDS = 5;

/** How long a delivery waits for a free slot before it is answered 503: well inside the 15 s the service waits. */
const ANSWER_WAIT_MS = 8_000;

/**
 * Answers the delivery 2xx once fewer than `slots` of this trigger's answered executions (batches
 * or single events) are unfinished in this process, so that a crash cuts short at most that many runs
 * whose events the service will not send again; each holds its slot until n8n says it ended.
 * With no room within ANSWER_WAIT_MS it answers 503 (the service retries), says why in a hint,
 * and returns false. n8n 1.x tells a node nothing when its execution ends: there, and for test
 * listens, it answers at once.
 */
async function answerWithRoom(
	ctx: IExecuteFunctions,
	takenSlot: (() => void) | undefined,
	slots: number,
	headers: Record<string, string>,
): Promise<boolean> {
	const received = { statusCode: 200, headers, body: { received: true } };
	if (ctx.getMode() !== 'webhook' || ctx.onExecutionFinish === undefined) {
		takenSlot?.();
		await ctx.sendResponse(received);
		return true;
	}
	const free =
		takenSlot ?? (await triggerExecutionSlots(ctx, Date.now(), slots).takeWithin(ANSWER_WAIT_MS));
	if (free === undefined) {
		ctx.addExecutionHints({
			message: `Answered 503: ${slots} executions of this trigger were still running, so the service sends this event again later and that delivery runs it`,
			location: 'outputPane',
		});
		await ctx.sendResponse({
			statusCode: 503,
			headers: { ...headers, 'retry-after': String(ANSWER_WAIT_MS / 1000) },
			body: {
				error: BUSY_ERROR,
			},
		});
		return false;
	}
	ctx.onExecutionFinish(free);
	await ctx.sendResponse(received);
	return true;
}

/**
 * The trigger's step inside the execution n8n stored for a delivery: only now is the event safe to
 * acknowledge, because a crash from here on leaves an execution that n8n marks crashed and can
 * retry. Then the event is claimed: a repeat (the service delivered it again because an answer was
 * lost, or a copy reached another webhook processor) stops here with no items, so nothing past
 * the trigger runs twice. A person's Retry claims too: several runs cut short can hold the same
 * event, and only the first Retry of them runs it. Test listens run as they are.
 */
export async function runDelivery(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	// receiveDelivery lets through only events with an id, and gives each receipt an id.
	const receiptId = (items[0]?.json.meta as IDataObject | undefined)?.receipt_id;
	const batch = batchStartOf(items[0]);
	const receipt = receivedHere(receiptId);
	const key = triggerKey(this);
	// Received in another process (a queue-mode webhook processor): the answer tells it what ran here.
	const report =
		receipt === undefined && this.getMode() === 'webhook'
			? claimsReport(claimScope(this), Date.now())
			: {};
	if (!(await answerWithRoom(this, receipt?.slot, slotCount(batch), report))) {
		settleReceipt(receiptId, false);
		batchClaimed(key, receiptId);
		return [[]];
	}
	keepReceipt(receiptId);
	const mode = this.getMode();
	const listenedBatchSize = mode === 'manual' ? eventsPerExecution(this) : 1;
	if (listenedBatchSize > 1)
		this.addExecutionHints({
			message: `A test listen runs the delivered event alone. Published, it would run in a batch with the other events the service had created by then (up to ${listenedBatchSize}, oldest first), each an item shaped as this one`,
			location: 'outputPane',
		});
	// A Retry of an execution stored before receipts had ids cannot tell its own claim: it runs.
	if (mode !== 'webhook' && !(mode === 'retry' && typeof receiptId === 'string')) return [items];
	// A batch reads the event list where it was received (regular mode) and in a Retry, which reads
	// the same range again; a queue-mode worker, which never hears of this process's other
	// deliveries, runs the delivered event alone.
	const read =
		batch !== undefined && (mode === 'retry' || receipt !== undefined)
			? await readBatch(this, items[0].json as unknown as EventEnvelope, batch)
			: undefined;
	const claimant = typeof receiptId === 'string' ? receiptId : this.getExecutionId();
	const batchItems =
		read?.kind === 'read'
			? read.events.map((event) =>
					event.id === items[0].json.id
						? items[0]
						: toItem(event, { delivery: 'webhook', read_with_batch: true, receipt_id: claimant }),
				)
			: items;
	if (read?.kind === 'unread')
		this.addExecutionHints({
			message: `Events per Execution is Many, but the service's event list could not be read (${read.reason}), so this execution runs the delivered event alone`,
			location: 'outputPane',
		});
	let outcomes: ClaimOutcome[];
	try {
		// Received in this process and run here (n8n's regular mode): no other process writes the
		// record, so the claim stands without the settle.
		outcomes = await claimEvents(
			this,
			batchItems.map((item) => item.json.id as string),
			claimant,
			{ soleWriter: mode === 'webhook' && receipt !== undefined },
		);
		settleReceipt(receiptId, true);
	} catch (error) {
		settleReceipt(receiptId, false);
		throw claimFailed(this, error, 'The event was received and this execution keeps it.');
	} finally {
		batchClaimed(key, receiptId, mode === 'webhook' ? read : undefined);
	}
	return passOnClaimed(this, batchItems, outcomes, (repeats) =>
		batchItems.length === 1
			? 'This event already ran in another execution (the service delivered it again), so this execution stops at the trigger'
			: `${repeats} of these ${batchItems.length} events already ran in other executions (delivered again, or pulled by Svc Pull Trigger), so they are left out of this one`,
	);
}
