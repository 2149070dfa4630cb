import { sleep } from 'n8n-workflow';

import type { EventEnvelope } from '../../contract';
import type { PullPosition } from './pullPosition';

/**
 * The position of one poll, moved past the events it started as their claims come in, in order:
 * n8n stores it with the next execution the poll starts, so it lags the claims as little as n8n
 * allows, and a crash has few claimed events to read again. It never passes an event that was not
 * claimed.
 */
export class ClaimedPrefix {
	private readonly pending: Array<{ event: EventEnvelope; claimed?: boolean }> = [];
	private added = 0;
	private passed = 0;
	private closed = false;
	private readonly waiting: Array<{ passed: number; go: (start: boolean) => void }> = [];

	constructor(
		public position: PullPosition,
		private readonly moveTo: (event: EventEnvelope) => PullPosition,
	) {}

	/** How many events were added so far: the index the next one gets. */
	get next(): number {
		return this.added;
	}

	/** Tracks `events` in order with their claims; each claim's outcome as it comes in. */
	add(events: EventEnvelope[], claims: Array<Promise<boolean>>): Array<boolean | undefined> {
		const outcomes: Array<boolean | undefined> = events.map(() => undefined);
		events.forEach((event, index) => {
			const entry: { event: EventEnvelope; claimed?: boolean } = { event };
			this.pending.push(entry);
			this.added++;
			void claims[index].then((claimed) => {
				entry.claimed = claimed;
				outcomes[index] = claimed;
				this.pass();
			});
		});
		return outcomes;
	}

	/**
	 * Resolves true once the position has passed the first `count` events added (at once when it
	 * has), or false once the poll is over (close): then the execution waiting on it must not start.
	 */
	async whenPassed(count: number): Promise<boolean> {
		if (this.closed) return false;
		if (this.passed >= count) return true;
		return await new Promise((go) => this.waiting.push({ passed: count, go }));
	}

	/**
	 * The poll is over: what still waits to start does not, and claims that come in later move
	 * nothing (the next poll, reading on from here, passes them with a position of its own).
	 */
	close(): void {
		this.closed = true;
		for (const { go } of this.waiting.splice(0)) go(false);
	}

	private pass(): void {
		if (this.closed) return;
		let last: EventEnvelope | undefined;
		while (this.pending[0]?.claimed === true) {
			last = this.pending.shift()?.event;
			this.passed++;
		}
		if (last === undefined) return;
		// Moved first: an execution started now stores the new position.
		this.position = this.moveTo(last);
		for (const waiter of [...this.waiting]) {
			if (waiter.passed > this.passed) continue;
			this.waiting.splice(this.waiting.indexOf(waiter), 1);
			waiter.go(true);
		}
	}
}

/** How often the poll looks at the claims of the run it waits for. */
const CLAIM_CHECK_MS = 50;

/**
 * Waits until every execution of a run has said whether it claimed its events, one said no, or
 * `deadline`: how many of the events, from the first on, were claimed.
 */
export async function claimedInOrder(
	outcomes: Array<boolean | undefined>,
	deadline: number,
): Promise<number> {
	for (;;) {
		const firstUnclaimed = outcomes.findIndex((outcome) => outcome !== true);
		if (firstUnclaimed < 0) return outcomes.length;
		if (outcomes[firstUnclaimed] === false || Date.now() >= deadline) return firstUnclaimed;
		await sleep(CLAIM_CHECK_MS);
	}
}
