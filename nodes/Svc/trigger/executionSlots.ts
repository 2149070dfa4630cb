/**
 * A fixed number of slots, each held by one execution from its start until it ends: a crash of
 * n8n then cuts short at most that many runs, whatever the backlog. Waiters get slots in order.
 */
export class ExecutionSlots {
	private held = 0;
	private readonly waiting: Array<() => void> = [];

	constructor(private readonly size: number) {}

	/** Resolves once a slot is free, with the function that frees it (a second call does nothing). */
	async take(): Promise<() => void> {
		if (this.held >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
		else this.held++;
		let freed = false;
		return () => {
			if (freed) return;
			freed = true;
			const next = this.waiting.shift();
			// The slot passes straight to the next waiter: `held` stays the same.
			if (next) next();
			else this.held--;
		};
	}

	/** Slots held now. */
	get inUse(): number {
		return this.held;
	}
}
