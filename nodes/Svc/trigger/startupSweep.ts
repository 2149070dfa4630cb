/**
 * n8n 1.x in regular mode serves production webhooks from the moment it listens, seconds before it
 * sweeps the executions a dead process left `running`: the sweep marks crashed every execution then
 * running, and the executions this process has just started for deliveries are among them. Such an
 * execution's data is gone, so an event it answered 2xx would be lost. n8n begins activating
 * workflows (checkExists or create of each webhook trigger) only after the sweep. Until then, a
 * delivery that this process both received and runs (regular mode; a queue worker receives none)
 * is answered 503 and the service sends it again.
 */
let activationBegun = false;
let deliveryReceived = false;

/** checkExists or create ran in this process: n8n's startup sweep, if any, is behind it. */
export function noteActivationBegun(): void {
	activationBegun = true;
}

/** This process's webhook step passed a delivery on to an execution. */
export function noteDeliveryReceived(): void {
	deliveryReceived = true;
}

/** Whether an execution of a delivery running in this process now may yet be swept (n8n 1.x). */
export function sweepMayTakeThisExecution(): boolean {
	return deliveryReceived && !activationBegun;
}
