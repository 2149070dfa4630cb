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
 * age are dropped, and the oldest go first once the count is reached.
 */
export function recordIfNew(
	staticData: IDataObject,
	id: string,
	now: number,
	limits: { maxCount: number; maxAgeMs: number } = { maxCount: SEEN_EVENTS_MAX_COUNT, maxAgeMs: SEEN_EVENTS_MAX_AGE_MS },
): boolean {
	const fresh = list(staticData).filter((seen) => now - seen.at <= limits.maxAgeMs);
	if (fresh.some((seen) => seen.id === id)) {
		staticData[KEY] = fresh;
		return false;
	}
	fresh.push({ id, at: now });
	staticData[KEY] = fresh.slice(-limits.maxCount);
	return true;
}
