import { sleep } from 'n8n-workflow';

/**
 * An id this process accepted over 1 s ago that the stored list still lacks means n8n's database
 * is behind: a save normally lands in milliseconds. The trigger answers before n8n creates the
 * execution (answering is what makes n8n save the seen id), so without this nothing would stop it
 * accepting faster than n8n can write, until SQLite's write lock gives up (after 60 s) on creating
 * an execution whose event was already answered 200. The limit is how far behind n8n may fall: at
 * 5 s a burst on n8n's defaults held 5.8 GB of queued work and a p99 of 6.3 s, at 1 s 2.5 GB and
 * 2.2 s, at a higher rate. Under a burst the list a delivery loads can be a second old by the time
 * the trigger runs, so 1 s also holds some deliveries n8n was not behind on; that costs a little
 * rate where n8n is fast (lazy isolates), never an event. After a minute a missing id says no
 * more about now.
 */
export const SAVE_LAG_WINDOW = { limitMs: 1_000, windowMs: 60_000 };

/**
 * While n8n is behind, a new delivery is held, not refused at once: holding costs n8n nothing and
 * keeps the sender's connection busy, which slows it down as n8n's own Webhook node does by
 * answering late. Refusing at once freed the sender to send the next delivery straight away, and
 * each refusal cost n8n as much CPU as an acceptance (measured: 4 accepted/s, most events refused
 * until the service gave up). 10 s stays well inside the service's 15 s answer timeout.
 */
export const HOLD_MS = 10_000;
const HOLD_POLL_MS = 100;

/** What a refused delivery's Retry-After says: about how long n8n takes to catch up. */
export const BUSY_RETRY_AFTER_SECONDS = 5;

/**
 * While every delivery the sender has open is held, nothing loads the stored list to see that n8n
 * caught up. After 0.4 s without a load, one held delivery is answered 503 so that the sender's
 * next delivery does: a retry for that one, instead of a 10 s stall for all of them. Most holds
 * end at the first such look (measured: under a burst n8n's writes hover around the limit),
 * so this sets how long a held delivery usually waits; after 1 s, p99 was 1.2 s.
 */
export const PROBE_AFTER_MS = 400;

/**
 * What deliveries of this process found when they loaded the stored list, per trigger. A held
 * delivery cannot load it again; the next delivery that loads it can tell.
 */
export class CatchUps {
	private readonly lastCaughtUp = new Map<string, number>();
	private readonly lastLoad = new Map<string, number>();
	private holding = 0;

	/** How many deliveries of this process are held right now: what a test waits on instead of a clock. */
	get held(): number {
		return this.holding;
	}

	/** Records what a delivery that loaded the stored list at `at` found. */
	observe(scope: string, at: number, saveLagMs: number): void {
		this.lastLoad.set(scope, at);
		if (saveLagMs === 0) this.lastCaughtUp.set(scope, at);
	}

	/**
	 * Holds a delivery that found n8n behind at `since`: true once a delivery loaded later finds
	 * it caught up; false after `holdMs`, or when this one is picked to free the sender's connection.
	 */
	async holdUntilCaughtUp(scope: string, since: number, holdMs: number): Promise<boolean> {
		this.holding += 1;
		try {
			// Counted in polls, not read from the clock: the hold is real time whatever Date says.
			for (let waited = 0; waited < holdMs; waited += HOLD_POLL_MS) {
				await sleep(HOLD_POLL_MS);
				if ((this.lastCaughtUp.get(scope) ?? -Infinity) >= since) return true;
				const now = Date.now();
				if (now - (this.lastLoad.get(scope) ?? now) >= PROBE_AFTER_MS) {
					// Counts as a load, so the other held deliveries wait for what the next one finds.
					this.lastLoad.set(scope, now);
					return false;
				}
			}
			return false;
		} finally {
			this.holding -= 1;
		}
	}
}

export const catchUps = new CatchUps();
