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

/** The trigger's stored list as one delivery loaded it, with the ids still within the age limit. */
export class SeenEvents {
	private constructor(
		private readonly seen: Map<string, number>,
		private readonly limits: Limits,
	) {}

	static load(staticData: IDataObject, now: number, limits: Limits = DEFAULT_LIMITS): SeenEvents {
		return new SeenEvents(load(staticData, now, limits.maxAgeMs), limits);
	}

	/** Whether the stored list holds `id`. */
	has(id: string): boolean {
		return this.seen.has(id);
	}

	/**
	 * How long the oldest id this process accepted between `limitMs` and `windowMs` ago has been
	 * missing from the stored list, in ms; 0 when none is. n8n saves the list after each delivery
	 * is answered, and every save carries all the ids this process accepted, so an id missing for
	 * longer than a save takes means n8n's database is behind on its writes (and with them, on
	 * creating executions). Only ids accepted after the newest one stored count: a save that landed
	 * later carried every earlier id of this process, so an earlier one missing was dropped (by a
	 * full list, or by another process's save in queue mode), not left unsaved. Ids older than the
	 * window are left out too: a missing one says no more about now.
	 */
	saveLagMs(knownHere: ReadonlyMap<string, number>, now: number, window: { limitMs: number; windowMs: number }): number {
		let newestStored = -Infinity;
		for (const at of this.seen.values()) newestStored = Math.max(newestStored, at);
		// Oldest first: the first missing one within the window is the answer.
		for (const [id, at] of knownHere) {
			const age = now - at;
			if (age > window.windowMs || at <= newestStored) continue;
			if (age <= window.limitMs) break;
			if (!this.seen.has(id)) return age;
		}
		return 0;
	}

	/** Writes the list back with the ids this process accepted, without recording a new one. */
	writeBack(staticData: IDataObject, now: number, knownHere: ReadonlyMap<string, number>): void {
		this.merge(now, knownHere);
		store(staticData, this.seen, this.limits.maxCount);
	}

	/**
	 * Records `id` in static data and returns true when it was not seen before. Entries older than
	 * the maximum age are dropped, and the oldest go first once the count is reached. `knownHere`
	 * (ids this process accepted) is merged in: a concurrent delivery's save may have overwritten
	 * the stored list with one that lacks them, and this save puts them back.
	 */
	recordIfNew(staticData: IDataObject, id: string, now: number, knownHere: ReadonlyMap<string, number> = new Map()): boolean {
		const isNew = !this.seen.has(id);
		this.merge(now, knownHere);
		if (isNew) this.seen.set(id, now);
		store(staticData, this.seen, this.limits.maxCount);
		return isNew;
	}

	/** Adds the newest `maxCount` ids of `knownHere` (oldest first): the rest could not be stored. */
	private merge(now: number, knownHere: ReadonlyMap<string, number>): void {
		let older = knownHere.size - this.limits.maxCount;
		for (const [knownId, at] of knownHere) {
			if (older-- > 0) continue;
			if (!this.seen.has(knownId) && now - at <= this.limits.maxAgeMs) this.seen.set(knownId, at);
		}
	}
}

/**
 * Event ids accepted by this process, per trigger. Static data is loaded when a delivery arrives
 * and saved once it is answered, so two copies of one event arriving together would both find
 * it unseen there, and concurrent saves overwrite each other. This record, shared by every
 * delivery this process handles, closes both gaps within one n8n process; separate processes
 * (several webhook processors) cannot share it.
 */
export class ProcessClaims {
	private readonly scopes = new Map<string, Map<string, number>>();

	constructor(private readonly limits: Limits) {}

	/** True for the first claim of `id` in `scope` within the limits, false for a repeat. */
	claim(scope: string, id: string, now: number): boolean {
		const claimed = this.known(scope, now);
		if (claimed.has(id)) return false;
		// Insertion order is claim order: the oldest are at the front.
		for (const oldest of claimed.keys()) {
			if (claimed.size < this.limits.maxCount) break;
			claimed.delete(oldest);
		}
		claimed.set(id, now);
		return true;
	}

	/** The ids claimed in `scope` within the age limit, oldest first, with the time of their claim. */
	known(scope: string, now: number): Map<string, number> {
		let claimed = this.scopes.get(scope);
		if (!claimed) {
			claimed = new Map();
			this.scopes.set(scope, claimed);
		}
		for (const [id, at] of claimed) {
			if (now - at <= this.limits.maxAgeMs) break;
			claimed.delete(id);
		}
		return claimed;
	}
}

/**
 * As long as the stored list keeps, and five times as many (about 1 MB per trigger): a burst of
 * thousands reorders deliveries (held, refused, retried), so a repeat can come more than 2,000
 * events after the first. Remove Duplicates keeps 10,000 values by default too.
 */
const PROCESS_CLAIMS_MAX_COUNT = 10_000;
export const processClaims = new ProcessClaims({ ...DEFAULT_LIMITS, maxCount: PROCESS_CLAIMS_MAX_COUNT });
