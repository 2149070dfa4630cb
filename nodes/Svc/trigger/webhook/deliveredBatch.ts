/**
 * Svc Trigger in batches (Events per Execution: Many), in n8n's regular mode, where the process that
 * receives a delivery also runs its execution. A delivery that finds no batch under way leads one:
 * its execution reads the service's event list from where this process's last batch stopped and
 * claims what it read, up to Batch Size events. Deliveries arriving meanwhile wait for that claim
 * and are answered 200 without an execution of their own once their event is in it: n8n's record
 * then holds the claim, and the batch's stored execution (its Retry reads the same range again)
 * runs it. A batch is not limited by how many deliveries the service has in flight: it holds the
 * events the service created, delivered yet or not.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { EventEnvelope } from '../../contract';
import { EVENT_LIST_QUERY } from '../../contract';
import { desiredEvents } from '../../shared/subscription';
import { settlesWithin } from '../../shared/waits';
import { SvcClient } from '../../transport';
import { eventClaims } from '../exactlyOnce/eventClaims';
import { POLL_CLIENT, readPage } from '../eventList';

/** Where a batch's read starts, stored with its leading delivery so that a Retry reads the same range. */
export interface BatchStart {
	/** The last event this process's previous batch read; without one, the leading event's time. */
	after?: string;
	size: number;
}

interface PendingBatch {
	receiptId: string;
	startedAt: number;
	claimed: Promise<void>;
	finish: () => void;
}

/** Per trigger (triggerKey): the batch whose read and claims are under way, and the last event read. */
const pendingBatches = new Map<string, PendingBatch>();
const lastRead = new Map<string, string>();

/**
 * A batch whose execution never claims (n8n lost it, or runs it in another process) stops holding
 * deliveries back after this long.
 */
const PENDING_BATCH_MAX_MS = 20_000;

export type BatchTurn =
	/** This delivery leads a new batch, read from `start`. */
	| { kind: 'lead'; start: BatchStart }
	/** A batch under way claimed the event: answered without an execution. */
	| { kind: 'taken' }
	/** The batch under way did not claim within the wait. */
	| { kind: 'waited' };

/**
 * Waits, at most `waitMs`, for the batches under way until one of them claims `eventId`, or none is
 * under way: then this delivery leads the next batch (`receiptId` names it), registered in the same
 * turn as the check, so that of two deliveries arriving together one leads and the other waits.
 */
export async function batchTurn(
	key: string,
	scope: string,
	eventId: string,
	receiptId: string,
	size: number,
	waitMs: number,
): Promise<BatchTurn> {
	const deadline = Date.now() + waitMs;
	for (;;) {
		if (eventClaims.has(scope, eventId, Date.now())) return { kind: 'taken' };
		const pending = pendingBatches.get(key);
		if (pending === undefined || Date.now() - pending.startedAt > PENDING_BATCH_MAX_MS) {
			pendingBatches.set(key, newPendingBatch(key, receiptId));
			return { kind: 'lead', start: { after: lastRead.get(key), size } };
		}
		const left = deadline - Date.now();
		const claimed = await settlesWithin(pending.claimed, Math.max(0, left));
		if (!claimed) return { kind: 'waited' };
	}
}

function newPendingBatch(key: string, receiptId: string): PendingBatch {
	let finish = (): void => {};
	const claimed = new Promise<void>((resolve) => {
		finish = (): void => {
			if (pendingBatches.get(key)?.receiptId === receiptId) pendingBatches.delete(key);
			resolve();
		};
	});
	return { receiptId, startedAt: Date.now(), claimed, finish };
}

/**
 * The batch `receiptId` leads has claimed its events (or failed to, or never started): deliveries
 * waiting for it look again. `read`, in the process that received it: the next batch reads on
 * after its last event; after a failed read (the event it read after may be no longer kept), from
 * its own leading event's time.
 */
export function batchClaimed(key: string, receiptId: unknown, read?: BatchRead): void {
	if (read?.kind === 'unread') lastRead.delete(key);
	else if (read?.readUpTo !== undefined) lastRead.set(key, read.readUpTo);
	const pending = pendingBatches.get(key);
	if (pending !== undefined && pending.receiptId === receiptId) pending.finish();
}

/** The batch's start as the leading delivery's item carries it (`meta.batch`), if it leads one. */
export function batchStartOf(item: INodeExecutionData | undefined): BatchStart | undefined {
	const batch = (item?.json.meta as IDataObject | undefined)?.batch as IDataObject | undefined;
	if (batch === undefined || typeof batch.size !== 'number') return undefined;
	return { size: batch.size, after: typeof batch.after === 'string' ? batch.after : undefined };
}

export type BatchRead =
	/** `readUpTo`: the last event of the list the batch holds, where the next batch reads on. */
	| { kind: 'read'; events: EventEnvelope[]; readUpTo?: string }
	/** The list could not be read (no event list, a missing scope, the service down): why, for a hint. */
	| { kind: 'unread'; reason: string };

/**
 * The events of the batch led by `leading` (an event delivered to the trigger): up to `start.size`
 * of the chosen kinds, oldest first, from `start.after`, or from the leading event's time without
 * it. The leading event is always one of them, in its place.
 */
export async function readBatch(
	ctx: IExecuteFunctions,
	leading: EventEnvelope,
	start: BatchStart,
): Promise<BatchRead> {
	const events: EventEnvelope[] = [];
	try {
		const client = await SvcClient.connect(ctx, POLL_CLIENT);
		const types = desiredEvents(ctx).join(',');
		// created_after is exclusive: a millisecond before the leading event includes it.
		let query: IDataObject =
			start.after !== undefined
				? { [EVENT_LIST_QUERY.after]: start.after }
				: {
						[EVENT_LIST_QUERY.createdAfter]: new Date(
							Date.parse(leading.created_at) - 1,
						).toISOString(),
					};
		while (events.length < start.size) {
			const read = await readPage(client, ctx, { [EVENT_LIST_QUERY.types]: types, ...query });
			if (read.kind === 'unavailable') return { kind: 'unread', reason: read.error.message };
			if (read.kind === 'expired')
				return { kind: 'unread', reason: 'the event it reads after is no longer kept' };
			events.push(...read.page.data);
			const last = read.page.data[read.page.data.length - 1];
			if (!read.page.has_more || last === undefined) break;
			query = { [EVENT_LIST_QUERY.after]: last.id };
		}
	} catch (error) {
		return { kind: 'unread', reason: (error as Error).message };
	}
	const batch = events.slice(0, start.size);
	if (batch.some((event) => event.id === leading.id))
		return { kind: 'read', events: batch, readUpTo: batch[batch.length - 1].id };
	// Read past it (an older event delivered late, or Batch Size events before it): it goes first
	// or last, by its time, in the place of the batch's last event, which the next batch reads.
	const others = batch.slice(0, start.size - 1);
	const older = Date.parse(leading.created_at) < Date.parse(others[0]?.created_at ?? '');
	return {
		kind: 'read',
		events: older ? [leading, ...others] : [...others, leading],
		readUpTo: others[others.length - 1]?.id ?? start.after,
	};
}
