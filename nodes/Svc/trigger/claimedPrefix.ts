import { sleep } from 'n8n-workflow';

import type { EventEnvelope } from '../contract';
import type { PullPosition } from './pullPosition';

/**
 * The position of one poll, moved past the events it started as their claims come in, in order:
 * n8n stores it with the next execution the poll starts, so it lags the claims as little as n8n
 * allows, and a crash has few claimed events to read again. It never passes an event that was not
 * claimed.
 */
export class ClaimedPrefix {
	private readonly pending: Array<{ event: EventEnvelope; claimed?: boolean }> = [];

	constructor(
		public position: PullPosition,
		private readonly moveTo: (event: EventEnvelope) => PullPosition,
	) {}

	/** Tracks `events` in order with their claims; each claim's outcome as it comes in. */
	add(events: EventEnvelope[], claims: Array<Promise<boolean>>): Array<boolean | undefined> {
		const outcomes: Array<boolean | undefined> = events.map(() => undefined);
		events.forEach((event, index) => {
			const entry: { event: EventEnvelope; claimed?: boolean } = { event };
			this.pending.push(entry);
			void claims[index].then((claimed) => {
				entry.claimed = claimed;
				outcomes[index] = claimed;
				this.pass();
			});
		});
		return outcomes;
	}

	private pass(): void {
		let last: EventEnvelope | undefined;
		while (this.pending[0]?.claimed === true) last = this.pending.shift()?.event;
		if (last !== undefined) this.position = this.moveTo(last);
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
