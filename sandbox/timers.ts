/* eslint-disable @n8n/community-nodes/no-restricted-globals -- tooling that runs in Node.js beside n8n, never inside it */
/** Sleeps that can all be cancelled at once, so closing the sandbox leaves no timer behind. */
export class Timers {
	/** Each sleep's timer, and how to end it early: true as if its time had passed, false if cancelled. */
	private readonly sleeps = new Map<NodeJS.Timeout, (elapsed: boolean) => void>();

	/** Resolves true after `ms`, or false if cancelled first. */
	sleep(ms: number): Promise<boolean> {
		return new Promise((resolve) => {
			const timer = setTimeout(() => {
				this.sleeps.delete(timer);
				resolve(true);
			}, ms);
			this.sleeps.set(timer, resolve);
		});
	}

	/** Sleeps under way: lets a test wait until requests are held in their injected latency. */
	get pending(): number {
		return this.sleeps.size;
	}

	/** Ends every sleep under way now, as if its time had passed. */
	elapseAll(): void {
		this.endAll(true);
	}

	cancelAll(): void {
		this.endAll(false);
	}

	private endAll(elapsed: boolean): void {
		for (const [timer, end] of this.sleeps) {
			clearTimeout(timer);
			end(elapsed);
		}
		this.sleeps.clear();
	}
}
