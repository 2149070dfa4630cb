import { sleep } from 'n8n-workflow';

/**
 * An id this process accepted over 5 s ago that the stored list still lacks means n8n's database
 * is behind: a save normally lands in milliseconds. The trigger answers before n8n creates the
 * execution (answering is what makes n8n save the seen id), so without this nothing would stop it
 * accepting faster than n8n can write, until SQLite's write lock gives up (after 60 s) on creating
 * an execution whose event was already answered 200. Not less than 5 s: under a burst the list a
 * delivery loads is already a second or two old by the time the trigger runs. After a minute a
 * missing id says no more about now.
 */
export const SAVE_LAG_WINDOW = { limitMs: 5_000, windowMs: 60_000 };

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
 * When a delivery of this process last found n8n's database caught up, per trigger. A held
 * delivery cannot load the stored list again; the next delivery that loads it can tell.
 */
export class CatchUps {
	private readonly lastCaughtUp = new Map<string, number>();

	/** Records what a delivery that loaded the stored list at `at` found. */
	observe(scope: string, at: number, saveLagMs: number): void {
		if (saveLagMs === 0) this.lastCaughtUp.set(scope, at);
	}

	/** True once a delivery loaded after `since` finds n8n caught up; false after `holdMs`. */
	async waitSince(scope: string, since: number, holdMs: number): Promise<boolean> {
		// Counted in polls, not read from the clock: the wait is real time whatever Date says.
		for (let waited = 0; waited < holdMs; waited += HOLD_POLL_MS) {
			await sleep(HOLD_POLL_MS);
			if ((this.lastCaughtUp.get(scope) ?? -Infinity) >= since) return true;
		}
		return false;
	}
}

export const catchUps = new CatchUps();
