/** Sleeps that can all be cancelled at once, so closing the sandbox leaves no timer behind. */
export class Timers {
	private readonly pending = new Map<NodeJS.Timeout, () => void>();

	/** Resolves true after `ms`, or false if cancelled first. */
	sleep(ms: number): Promise<boolean> {
		return new Promise((resolve) => {
			const timer = setTimeout(() => {
				this.pending.delete(timer);
				resolve(true);
			}, ms);
			this.pending.set(timer, () => resolve(false));
		});
	}

	cancelAll(): void {
		for (const [timer, cancel] of this.pending) {
			clearTimeout(timer);
			cancel();
		}
		this.pending.clear();
	}
}
