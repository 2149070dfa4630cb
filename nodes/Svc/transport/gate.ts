import { sleep } from 'n8n-workflow';

export interface GateOptions {
	/** Requests per second across the whole node execution; undefined or 0 = unlimited. */
	maxRequestsPerSecond?: number;
	now?: () => number;
}

/**
 * One per node execution, shared by every worker: spaces request starts to the configured rate
 * and, when the service answers 429 with Retry-After, holds back every worker until then, so a
 * rate limit slows the whole batch once instead of each worker retrying on its own.
 */
export class RequestGate {
	private nextSlotAt = 0;
	private pausedUntil = 0;
	private readonly intervalMs: number;
	private readonly now: () => number;

	constructor(options: GateOptions = {}) {
		const rate = options.maxRequestsPerSecond ?? 0;
		this.intervalMs = rate > 0 ? 1000 / rate : 0;
		this.now = options.now ?? Date.now;
	}

	/** Resolves when the caller may send its next request. */
	async admit(): Promise<void> {
		for (;;) {
			const now = this.now();
			const waitForPause = this.pausedUntil - now;
			if (waitForPause > 0) {
				await sleep(waitForPause);
				continue;
			}
			if (this.intervalMs === 0) return;
			const slot = Math.max(now, this.nextSlotAt);
			this.nextSlotAt = slot + this.intervalMs;
			if (slot > now) await sleep(slot - now);
			// A 429 that arrived while this caller slept moves everyone back.
			if (this.pausedUntil <= this.now()) return;
		}
	}

	/** Called on a 429: nobody sends again before `ms` from now. */
	pause(ms: number): void {
		this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
	}
}
