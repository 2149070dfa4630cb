/**
 * A fixed number of slots, each held by one execution from its start until it ends: a crash of
 * n8n then cuts short at most that many runs, whatever the backlog. Waiters get slots in order.
 */
export class ExecutionSlots {
	/** When each slot in use was taken, by the function that frees it. */
	private readonly held = new Map<() => void, number>();
	private readonly waiting: Array<() => void> = [];
	/** Slots freed and promised to a woken waiter that has not taken them yet. */
	private handedOver = 0;

	constructor(private readonly size: number) {}

	/** Resolves once a slot is free, with the function that frees it (a second call does nothing). */
	async take(now: () => number = Date.now): Promise<() => void> {
		if (this.held.size + this.handedOver >= this.size) {
			await new Promise<void>((resolve) => this.waiting.push(resolve));
			this.handedOver--;
		}
		const free = (): void => {
			if (!this.held.delete(free)) return;
			const next = this.waiting.shift();
			if (next === undefined) return;
			// The slot goes to the first waiter, not to a take() that comes before it wakes.
			this.handedOver++;
			next();
		};
		this.held.set(free, now());
		return free;
	}

	/** Frees the slots taken before `before`: their executions never said they ended. */
	freeTakenBefore(before: number): void {
		for (const [free, takenAt] of [...this.held]) if (takenAt < before) free();
	}

	/** Slots held now. */
	get inUse(): number {
		return this.held.size;
	}
}
