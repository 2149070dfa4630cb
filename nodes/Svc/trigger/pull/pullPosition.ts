import type { IDataObject } from 'n8n-workflow';

import type { EventEnvelope } from '../../contract';
import { EVENT_LIST_QUERY } from '../../contract';

/**
 * Where Svc Pull Trigger reads the event list from, kept in the node's static data. It moves past
 * an event only once an execution n8n stored has claimed it, so after a crash the trigger reads
 * again from an earlier place, never from a later one.
 */
export interface PullPosition {
	/** The last event an execution claimed; the next read starts after it. */
	after?: string;
	/** That event's created_at: where to resume if the service no longer keeps it (410). */
	afterCreatedAt?: string;
	/** Before any event was claimed: read events created after this time. */
	createdAfter?: string;
	/** The start the person chose when this position was made ('now' or a time). */
	start: string;
}

const KEY = 'position';

/**
 * A resumed read starts this much before the last event seen: events created in the same
 * instant are read again rather than skipped, and their claims drop the repeats.
 */
export const RESUME_OVERLAP_MS = 1_000;

/** Where a poll's position came from (see currentPosition). */
export type PositionSource = 'stored' | 'here' | 'start';

/**
 * Whether `a` reads on from a later place than `b`; false when that cannot be told. A position
 * past a claimed event is past one made before any claim (from the start, or after a 410: both
 * come before the events read from them); two of a kind compare by their times.
 */
export function readsPast(a: PullPosition, b: PullPosition): boolean {
	if (a.after !== undefined && b.after === undefined) return true;
	if (a.after === undefined && b.after !== undefined) return false;
	if (a.after !== undefined && a.after === b.after) return false;
	const time = (position: PullPosition): number =>
		Date.parse(position.afterCreatedAt ?? position.createdAfter ?? '');
	return time(a) > time(b);
}

/**
 * The furthest back a first read starts from the subscription's creation: n8n creates it moments
 * before the runner starts, while one kept from an earlier publish (Run Events From changed) may be
 * days old, and its events ran from their deliveries then.
 */
const START_LOOKBACK_MAX_MS = 60_000;

/**
 * Where a trigger that has read nothing yet starts, when it knows better than 'now': Svc Trigger
 * run from the event list starts where its subscription began delivering (n8n creates it before it
 * starts the runner), so that no event answered in between is left unread. A stored position stays.
 */
export function startPositionAt(
	staticData: IDataObject,
	deliveredSince: string,
	now: number,
): void {
	const since = Date.parse(deliveredSince);
	if (staticData[KEY] !== undefined || !Number.isFinite(since)) return;
	// An event created in the same millisecond as the subscription is read too.
	const from = Math.max(since - 1, now - START_LOOKBACK_MAX_MS);
	const position: PullPosition = { createdAfter: new Date(from).toISOString(), start: 'now' };
	staticData[KEY] = position;
}

/**
 * The position a poll reads on from, for the person's start (`start`: 'now' or an ISO time): the
 * stored one, unless `here` (where this process last moved it, which n8n may not have stored yet)
 * reads past it; with neither, a new one from the start. A position made from another start is
 * not used: a start changed by the person starts over from the new start.
 */
export function currentPosition(
	staticData: IDataObject,
	start: string,
	now: number,
	here?: PullPosition,
): { position: PullPosition; from: PositionSource } {
	const stored = staticData[KEY] as PullPosition | undefined;
	const usable = (position?: PullPosition): position is PullPosition =>
		position?.start === start &&
		(position.after !== undefined || position.createdAfter !== undefined);
	if (usable(stored) && !(usable(here) && readsPast(here, stored)))
		return { position: stored, from: 'stored' };
	const from: PositionSource = usable(here) ? 'here' : 'start';
	const position: PullPosition =
		from === 'here'
			? { ...here, start }
			: { createdAfter: start === 'now' ? new Date(now).toISOString() : start, start };
	staticData[KEY] = position;
	return { position, from };
}

/** Past the last of `events`, once an execution claimed them. */
export function advancePast(
	staticData: IDataObject,
	position: PullPosition,
	last: EventEnvelope,
): PullPosition {
	const next: PullPosition = {
		after: last.id,
		afterCreatedAt: last.created_at,
		start: position.start,
	};
	staticData[KEY] = next;
	return next;
}

/** After a 410: read again from the last event's time, a little before it. */
export function resumeFromTime(staticData: IDataObject, position: PullPosition): PullPosition {
	const seen = Date.parse(position.afterCreatedAt ?? '');
	const next: PullPosition = {
		createdAfter: Number.isFinite(seen)
			? new Date(seen - RESUME_OVERLAP_MS).toISOString()
			: new Date(0).toISOString(),
		start: position.start,
	};
	staticData[KEY] = next;
	return next;
}

/** The query that reads on from `position`. */
export function positionQuery(position: PullPosition): IDataObject {
	return position.after !== undefined
		? { [EVENT_LIST_QUERY.after]: position.after }
		: { [EVENT_LIST_QUERY.createdAfter]: position.createdAfter };
}
