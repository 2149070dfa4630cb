import type { IDataObject } from 'n8n-workflow';

export const SEEN_EVENTS_MAX_COUNT = 2000;
/** Longer than the service's retry schedule, so a late retry is still recognised. */
export const SEEN_EVENTS_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

const KEY = 'seenEvents';

/** Event ids recently delivered, oldest first, kept in the node's static data. */
interface Seen extends IDataObject {
	id: string;
	at: number;
}

function list(staticData: IDataObject): Seen[] {
	const stored = staticData[KEY];
	return Array.isArray(stored) ? (stored as Seen[]) : [];
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
	limits: { maxCount: number; maxAgeMs: number } = { maxCount: SEEN_EVENTS_MAX_COUNT, maxAgeMs: SEEN_EVENTS_MAX_AGE_MS },
): boolean {
	const seen = new Map<string, number>();
	for (const entry of list(staticData)) if (now - entry.at <= limits.maxAgeMs) seen.set(entry.id, entry.at);
	const isNew = !seen.has(id);
	for (const [knownId, at] of knownHere) if (!seen.has(knownId) && now - at <= limits.maxAgeMs) seen.set(knownId, at);
	if (isNew) seen.set(id, now);
	staticData[KEY] = [...seen]
		.sort(([, a], [, b]) => a - b)
		.slice(-limits.maxCount)
		.map(([seenId, at]): Seen => ({ id: seenId, at }));
	return isNew;
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

	constructor(private readonly limits: { maxCount: number; maxAgeMs: number }) {}

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

	/** The ids claimed in `scope` within the age limit, with the time of their claim. */
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

/** As long and as many as the stored list keeps, per trigger. */
export const processClaims = new ProcessClaims({ maxCount: SEEN_EVENTS_MAX_COUNT, maxAgeMs: SEEN_EVENTS_MAX_AGE_MS });
