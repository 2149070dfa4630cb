/**
 * n8n 1.x in regular mode serves production webhooks from the moment it listens, seconds before it
 * sweeps the executions a dead process left `running`: the sweep marks crashed every execution then
 * running, and the executions this process has just started for deliveries are among them. Such an
 * execution's data is gone, so an event it answered 2xx would be lost. n8n begins activating
 * workflows (checkExists or create of each webhook trigger) only after the sweep. So a delivery
 * this process received before that is answered 503 by its execution, when this process runs it
 * (regular mode; a queue worker runs deliveries another process received), and the service sends
 * it again.
 */
let activationBegun = false;

/** Receipts of deliveries received before activation began. A queue webhook processor never activates and never runs its deliveries: the oldest go first. */
const receivedBeforeActivation = new Set<string>();
const RECEIPTS_KEPT_MAX = 1_000;

/** checkExists or create ran in this process: n8n's start-up sweep, if any, is behind it. */
export function noteActivationBegun(): void {
	activationBegun = true;
}

/** This process's webhook step passed the delivery with `receiptId` on to an execution. */
export function noteReceipt(receiptId: string): void {
	if (activationBegun) return;
	if (receivedBeforeActivation.size >= RECEIPTS_KEPT_MAX) {
		const [oldest] = receivedBeforeActivation;
		receivedBeforeActivation.delete(oldest);
	}
	receivedBeforeActivation.add(receiptId);
}

/**
 * Whether this process received the delivery with `receiptId` before n8n began activating
 * workflows, so that the sweep may take the execution running it. Answered once per receipt.
 */
export function receivedWhileStarting(receiptId: string): boolean {
	return receivedBeforeActivation.delete(receiptId);
}
