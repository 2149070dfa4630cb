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

/**
 * Event ids accepted by this process lately, per trigger. Static data is loaded when a delivery
 * arrives and saved once it is answered, so two copies of one event arriving together would both
 * find it unseen there. This record, shared by every delivery this process handles, closes that
 * window within one n8n process; separate processes (several webhook processors) cannot share it.
 */
export class ProcessClaims {
	private readonly claimed = new Map<string, number>();

	constructor(private readonly limits: { maxCount: number; maxAgeMs: number }) {}

	/** True for the first claim of `id` in `scope` within the age limit, false for a repeat. */
	claim(scope: string, id: string, now: number): boolean {
		// Insertion order is claim order: expired entries, and surplus ones, are at the front.
		for (const [key, at] of this.claimed) {
			if (now - at <= this.limits.maxAgeMs) break;
			this.claimed.delete(key);
		}
		const key = `${scope}\u0000${id}`;
		if (this.claimed.has(key)) return false;
		for (const oldest of this.claimed.keys()) {
			if (this.claimed.size < this.limits.maxCount) break;
			this.claimed.delete(oldest);
		}
		this.claimed.set(key, now);
		return true;
	}
}

/** Long enough to outlast the static-data save of the first copy by far, small in memory. */
export const processClaims = new ProcessClaims({ maxCount: 10_000, maxAgeMs: 10 * 60 * 1000 });
