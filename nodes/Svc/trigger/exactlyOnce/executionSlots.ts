import type { IExecuteFunctions } from 'n8n-workflow';
import { settlesWithin } from '../../shared/waits';

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
		// Checked and held in one turn: two takes must not both see the last slot free.
		if (!this.hasRoom()) await this.turn(Infinity);
		return this.hold(now());
	}

	/** As take(), but gives up after `waitMs` with no slot free: undefined. */
	async takeWithin(
		waitMs: number,
		now: () => number = Date.now,
	): Promise<(() => void) | undefined> {
		return this.hasRoom() || (await this.turn(waitMs)) ? this.hold(now()) : undefined;
	}

	/** Frees the slots taken before `before`: their executions never said they ended. */
	freeTakenBefore(before: number): void {
		for (const [free, takenAt] of [...this.held]) if (takenAt < before) free();
	}

	/** Slots held now. */
	get inUse(): number {
		return this.held.size;
	}

	/** Whether a take() now would wait. */
	get full(): boolean {
		return !this.hasRoom();
	}

	private hasRoom(): boolean {
		return this.held.size + this.handedOver < this.size;
	}

	/** Waits for a freed slot up to `waitMs`: whether one came, which is then this caller's to hold. */
	private async turn(waitMs: number): Promise<boolean> {
		let woken = false;
		let wake = (): void => {};
		const wokenUp = new Promise<void>((resolve) => {
			wake = (): void => {
				woken = true;
				resolve();
			};
		});
		this.waiting.push(wake);
		await (Number.isFinite(waitMs) ? settlesWithin(wokenUp, waitMs) : wokenUp);
		// Woken even if the wait ran out in the same turn: the slot was handed over.
		if (woken) {
			this.handedOver--;
			return true;
		}
		this.waiting.splice(this.waiting.indexOf(wake), 1);
		return false;
	}

	private hold(takenAt: number): () => void {
		const free = (): void => {
			if (!this.held.delete(free)) return;
			const next = this.waiting.shift();
			if (next === undefined) return;
			// The slot goes to the first waiter, not to a take() that comes before it wakes.
			this.handedOver++;
			next();
		};
		this.held.set(free, takenAt);
		return free;
	}
}

/**
 * At most this many of a trigger's executions unfinished at once in this process (a pull trigger
 * one per event, or Svc Trigger's answered deliveries), so that a crash leaves at most this many
 * runs for a person to Retry. 20 executions keep n8n as busy as the 2 cores it was measured on can
 * be, also where each lasts at least its claim's 2 s settle (queue mode).
 */
export const UNFINISHED_EXECUTIONS_MAX = 20;
/** A slot whose execution never said it ended (n8n lost it, or it waits) is freed this long after. */
const SLOT_HOLD_MAX_MS = 2 * 60_000;
const slotsOf = new Map<string, ExecutionSlots>();

type TriggerNode = Pick<IExecuteFunctions, 'getWorkflow' | 'getNode'>;

/** Names one trigger node of one workflow, for what this process keeps per trigger. */
export const triggerKey = (trigger: TriggerNode): string =>
	`${trigger.getWorkflow().id} ${trigger.getNode().id}`;

/**
 * The slots of a trigger node in this process (`size` of them: a trigger republished with another
 * size gets new ones), with those held too long freed.
 */
export function triggerExecutionSlots(
	trigger: TriggerNode,
	now: number = Date.now(),
	size: number = UNFINISHED_EXECUTIONS_MAX,
): ExecutionSlots {
	const key = `${triggerKey(trigger)} ${size}`;
	let slots = slotsOf.get(key);
	if (!slots) {
		slots = new ExecutionSlots(size);
		slotsOf.set(key, slots);
	}
	slots.freeTakenBefore(now - SLOT_HOLD_MAX_MS);
	return slots;
}
