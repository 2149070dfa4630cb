/**
 * At most `limit` holders at once, the rest served first come, first served; no limit until one
 * is set. Deliveries take a slot per attempt, so a burst goes out at a fixed concurrency.
 */
export class Slots {
	private limit: number | undefined;
	private inUse = 0;
	private waiting: Array<(granted: boolean) => void> = [];

	setLimit(limit: number | undefined): void {
		if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
			throw new RangeError('a slot limit must be a whole number, 1 or more');
		this.limit = limit;
		// A raised or removed limit lets waiting holders in at once.
		while (this.waiting.length > 0 && (this.limit === undefined || this.inUse < this.limit)) {
			this.inUse++;
			this.waiting.shift()?.(true);
		}
	}

	/** Resolves true once the caller holds a slot (release it after), false when cancelled first. */
	take(): Promise<boolean> {
		if (this.limit === undefined || this.inUse < this.limit) {
			this.inUse++;
			return Promise.resolve(true);
		}
		return new Promise((resolve) => this.waiting.push(resolve));
	}

	release(): void {
		const next = this.waiting.shift();
		// Handed straight to the next in line, so the count stays the same.
		if (next) next(true);
		else this.inUse--;
	}

	/** Turns every waiting caller away; slots already held stay held until released. */
	cancelWaiting(): void {
		const turnedAway = this.waiting;
		this.waiting = [];
		for (const resolve of turnedAway) resolve(false);
	}
}
