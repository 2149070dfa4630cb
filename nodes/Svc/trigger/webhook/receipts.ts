/**
 * What Svc Trigger's process knows of the deliveries it received and passed on to an execution:
 * each receipt's coming claim (announced, so that a poll of the same workflow and a copy delivered
 * again wait for it), and the slot taken for its execution.
 */

import type { IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { ANNOUNCED_CLAIM_MAX_MS, eventClaims } from '../exactlyOnce/eventClaims';
import { executionPlace } from '../exactlyOnce/executionPlace';
import type { ExecutionSlots } from '../exactlyOnce/executionSlots';
import { triggerExecutionSlots } from '../exactlyOnce/executionSlots';

/**
 * What this process knows of an earlier copy of the event. 'taken': an execution of this process
 * claimed it, or is about to and keeps it until a claim stands (a pulled copy: its poll does not
 * pass the event before, and reads it again if the claim fails; or an earlier delivery whose
 * execution answered it): this delivery is answered 200 at once and costs no execution.
 * 'receiving': an earlier delivery's execution, in this process, has not answered yet (n8n is
 * busy; it may never run): this delivery is answered 503 at once, costing no execution either,
 * and the service's next try finds it taken, or, once that receipt is forgotten, runs it. 'none': this delivery
 * runs it, also when an earlier claim failed.
 */
export async function earlierCopy(
	scope: string,
	eventId: string,
): Promise<'taken' | 'receiving' | 'none'> {
	const now = Date.now();
	forgetStaleReceipts(now);
	if (eventClaims.has(scope, eventId, now)) return 'taken';
	const announced = eventClaims.claimedHere(scope, eventId, now);
	if (announced === undefined) return 'none';
	// Its outcome when it has one already; the answer does not wait for it.
	const outcome = await Promise.race([announced.stood, Promise.resolve(undefined)]);
	if (outcome !== undefined) return outcome ? 'taken' : 'none';
	if (announced.kept) return 'taken';
	// Only where this process is known to run the executions (n8n's regular mode): at a queue-mode
	// webhook processor a worker runs the execution, and the receipt never says it was answered.
	return executionPlace.of(scope) === 'here' ? 'receiving' : 'none';
}

/**
 * The receipts this process passed on to an execution, by receipt id, in the order received:
 * runDelivery settles each once it has claimed (or could not); those it never takes are forgotten
 * (forgetStaleReceipts).
 */
const receiptsAwaitingClaims = new Map<
	string,
	{
		scope: string;
		eventId: string;
		receivedAt: number;
		settle: (stood: boolean) => void;
		/** The slot taken for its execution (see roomFor), until the execution holds it. */
		slot?: () => void;
	}
>();
/**
 * How long a receipt waits for an execution of this process to take it before this process counts
 * as one whose executions run elsewhere (queue mode): its receipts are then not announced, so that
 * no poll waits for them.
 */
const FIRST_RUN_WAIT_MS = 20_000;

/**
 * Forgets the receipts no execution took in time: after FIRST_RUN_WAIT_MS where no execution of
 * the workflow ran in this process (which then counts as one whose executions run elsewhere), after
 * ANNOUNCED_CLAIM_MAX_MS where they run here (n8n may hold one in its queue for long under load, and
 * copies sent again meanwhile should start none). A forgotten receipt's slot goes to another (its
 * execution takes one if it starts after all) and its claim settles as not made. Looked at once per
 * delivery (earlierCopy), the only time it matters, rather than by a timer per receipt, which would
 * hold the process open for up to 2 minutes after its last delivery.
 */
function forgetStaleReceipts(now: number): void {
	for (const [receiptId, receipt] of receiptsAwaitingClaims) {
		const age = now - receipt.receivedAt;
		if (age < FIRST_RUN_WAIT_MS) return;
		if (executionPlace.of(receipt.scope) !== 'here') executionPlace.noneRanHere(receipt.scope);
		else if (age < ANNOUNCED_CLAIM_MAX_MS) continue;
		receiptsAwaitingClaims.delete(receiptId);
		receipt.slot?.();
		receipt.settle(false);
	}
}

/**
 * Keeps the receipt for its execution, and announces its coming claim, so that a poll of the same
 * workflow waits for it instead of running the event too.
 */
export function announceReceipt(
	scope: string,
	eventId: string,
	receiptId: string,
	slot: (() => void) | undefined,
): void {
	const now = Date.now();
	let settle: (stood: boolean) => void = () => {};
	const stood = new Promise<boolean>((resolve) => (settle = resolve));
	receiptsAwaitingClaims.set(receiptId, { scope, eventId, receivedAt: now, settle, slot });
	if (executionPlace.of(scope) !== 'elsewhere') eventClaims.announce(scope, eventId, stood, now);
}

/**
 * The receipt's execution runs in this process and answered the delivery: it holds the event (a
 * crash leaves it a run to Retry, as any answered delivery), so a copy delivered again meanwhile
 * may be answered without an execution of its own.
 */
export function keepReceipt(receiptId: unknown): void {
	const receipt = receiptOf(receiptId);
	if (receipt) eventClaims.keep(receipt.scope, receipt.eventId, Date.now());
}

export function settleReceipt(receiptId: unknown, stood: boolean): void {
	const receipt = receiptOf(receiptId);
	if (receipt === undefined) return;
	receiptsAwaitingClaims.delete(receiptId as string);
	receipt.settle(stood);
}

/** The receipt an execution's items name (their `meta.receipt_id`), if this process keeps it. */
function receiptOf(receiptId: unknown) {
	return typeof receiptId === 'string' ? receiptsAwaitingClaims.get(receiptId) : undefined;
}

/** How long a delivery waits for a slot of its trigger to be free before it starts an execution. */
const ROOM_WAIT_MS = 3_000;
const ROOM_CHECK_MS = 50;

/**
 * Room for one more execution of the trigger within ROOM_WAIT_MS, or undefined. Where its
 * executions run in this process (n8n's regular mode) the slot is taken now
 * and handed to the execution, so that an execution n8n starts late, behind others, never finds
 * the room gone and stops at the trigger with a 503. Elsewhere (a queue-mode webhook processor, or
 * before the first execution here took its receipt) a worker's execution takes its own: the room
 * is only checked.
 */
export async function roomFor(
	ctx: IWebhookFunctions,
	scope: string,
	size: number,
): Promise<{ slot: (() => void) | undefined } | undefined> {
	const slots = triggerExecutionSlots(ctx, Date.now(), size);
	if (executionPlace.of(scope) === 'here') {
		const slot = await slots.takeWithin(ROOM_WAIT_MS);
		return slot && { slot };
	}
	return (await roomWithin(slots, ROOM_WAIT_MS)) ? { slot: undefined } : undefined;
}

/** Whether `slots` has room within `waitMs` (not held). */
async function roomWithin(slots: ExecutionSlots, waitMs: number): Promise<boolean> {
	const deadline = Date.now() + waitMs;
	while (slots.full) {
		if (Date.now() >= deadline) return false;
		await sleep(ROOM_CHECK_MS);
	}
	return true;
}

/**
 * The receipt `receiptId`, when this process received the delivery and runs its execution (n8n's
 * regular mode), with the slot taken for it, which is now the execution's to hold.
 */
export function receivedHere(receiptId: unknown): { slot: (() => void) | undefined } | undefined {
	const receipt = receiptOf(receiptId);
	if (receipt === undefined) return undefined;
	executionPlace.ranHere(receipt.scope);
	const { slot } = receipt;
	receipt.slot = undefined;
	return { slot };
}
