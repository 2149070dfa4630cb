import type { IDataObject } from 'n8n-workflow';

export const SEEN_EVENTS_MAX_COUNT = 2000;
/** Longer than the service's retry schedule, so a late retry is still recognised. */
export const SEEN_EVENTS_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

const KEY = 'seenEvents';

interface Limits {
	maxCount: number;
	maxAgeMs: number;
}

const DEFAULT_LIMITS: Limits = { maxCount: SEEN_EVENTS_MAX_COUNT, maxAgeMs: SEEN_EVENTS_MAX_AGE_MS };

/**
 * The stored list is one string, a line per event, oldest first: when it was first seen (base-36
 * milliseconds), a space, its id. Ids come from the webhook-id header, which cannot hold a line
 * break. One string rather than an array of objects because n8n loads, wraps (a change-tracking
 * proxy per object) and saves the trigger's static data on every delivery: 2,000 objects made
 * that cost more than the rest of the delivery.
 */
function load(staticData: IDataObject, now: number, maxAgeMs: number): Map<string, number> {
	const stored = staticData[KEY];
	const seen = new Map<string, number>();
	const keep = (id: string, at: number): void => {
		if (now - at <= maxAgeMs) seen.set(id, at);
	};
	if (typeof stored === 'string' && stored !== '') {
		for (const line of stored.split('\n')) {
			const space = line.indexOf(' ');
			if (space > 0) keep(line.slice(space + 1), parseInt(line.slice(0, space), 36));
		}
	} else if (Array.isArray(stored)) {
		// The list of { id, at } objects that version 0.1.0 stored: read once, written back as text.
		for (const entry of stored as Array<{ id?: unknown; at?: unknown }>) {
			if (typeof entry?.id === 'string' && typeof entry.at === 'number') keep(entry.id, entry.at);
		}
	}
	return seen;
}

function store(staticData: IDataObject, seen: Map<string, number>, maxCount: number): void {
	staticData[KEY] = [...seen]
		.sort(([, a], [, b]) => a - b)
		.slice(-maxCount)
		.map(([id, at]) => `${at.toString(36)} ${id}`)
		.join('\n');
}

/**
 * Records `id` and returns true when it was not seen before. Entries older than the maximum
 * age are dropped, and the oldest go first once the count is reached. `knownHere` (ids this
 * process accepted) is merged in: a concurrent delivery's save may have overwritten the stored
 * list with one that lacks them, and the next save puts them back.
 */
export function recordIfNew(
	staticData: IDataObject,
	id: string,
	now: number,
	knownHere: ReadonlyMap<string, number> = new Map(),
	limits: Limits = DEFAULT_LIMITS,
): boolean {
	const seen = load(staticData, now, limits.maxAgeMs);
	const isNew = !seen.has(id);
	for (const [knownId, at] of knownHere) if (!seen.has(knownId) && now - at <= limits.maxAgeMs) seen.set(knownId, at);
	if (isNew) seen.set(id, now);
	store(staticData, seen, limits.maxCount);
	return isNew;
}

/**
 * What a delivery's claim found: the first copy of its event, a repeat of one that started, or
 * a copy that arrived while the first is still starting (its outcome is not known yet).
 */
export type Claim = 'first' | 'repeat' | 'starting';

interface ClaimState {
	at: number;
	starting: boolean;
}

/**
 * Event ids accepted by this process, per trigger. Static data is loaded when a delivery arrives
 * and saved once it is answered, so two copies of one event arriving together would both find
 * it unseen there, and concurrent saves overwrite each other. This record, shared by every
 * delivery this process handles, closes both gaps within one n8n process; separate processes
 * (several webhook processors) cannot share it.
 *
 * A claim stays "starting" until n8n has answered the first copy. If n8n could not start its
 * execution (it answers an error, and the service delivers again), the claim is dropped, so the
 * next copy runs instead of being taken for a repeat of an event that never ran.
 */
export class ProcessClaims {
	private readonly scopes = new Map<string, Map<string, ClaimState>>();

	constructor(private readonly limits: Limits) {}

	claim(scope: string, id: string, now: number): Claim {
		const claimed = this.current(scope, now);
		const existing = claimed.get(id);
		if (existing) return existing.starting ? 'starting' : 'repeat';
		// Insertion order is claim order: the oldest are at the front.
		for (const oldest of claimed.keys()) {
			if (claimed.size < this.limits.maxCount) break;
			claimed.delete(oldest);
		}
		claimed.set(id, { at: now, starting: true });
		return 'first';
	}

	/** The first copy was answered: `started` keeps the claim, otherwise it is dropped. */
	settle(scope: string, id: string, started: boolean): void {
		const claimed = this.scopes.get(scope);
		const state = claimed?.get(id);
		if (!claimed || !state?.starting) return;
		if (started) state.starting = false;
		else claimed.delete(id);
	}

	/** The settled claims in `scope` within the age limit, with the time of their claim. */
	known(scope: string, now: number): Map<string, number> {
		const known = new Map<string, number>();
		for (const [id, state] of this.current(scope, now)) if (!state.starting) known.set(id, state.at);
		return known;
	}

	private current(scope: string, now: number): Map<string, ClaimState> {
		let claimed = this.scopes.get(scope);
		if (!claimed) {
			claimed = new Map();
			this.scopes.set(scope, claimed);
		}
		for (const [id, state] of claimed) {
			if (now - state.at <= this.limits.maxAgeMs) break;
			claimed.delete(id);
		}
		return claimed;
	}
}

/** As long and as many as the stored list keeps, per trigger. */
export const processClaims = new ProcessClaims(DEFAULT_LIMITS);
