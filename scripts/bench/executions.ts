/** Waiting for the thousands of executions a burst starts. */
import { listExecutions, UNFINISHED } from '../../harness/n8n/api';
import type { N8nInstance } from '../../harness/n8n/instance';
import { sleep } from '../../harness/wait';

export interface Settled {
	executions: number;
	/** Still not ended when the time was up. */
	unfinished: number;
}

/**
 * Waits until the workflow's executions have all ended and their number held still between two
 * looks `quietMs` apart, or until `timeoutMs` has passed: an overloaded n8n may never finish, and
 * the figures then say how many did not.
 */
export async function waitUntilSettled(n8n: N8nInstance, workflowId: string, options: { quietMs: number; timeoutMs: number }): Promise<Settled> {
	const deadline = Date.now() + options.timeoutMs;
	let previous = -1;
	for (;;) {
		const list = await listExecutions(n8n, workflowId);
		const unfinished = list.filter((execution) => UNFINISHED.includes(execution.status)).length;
		if ((unfinished === 0 && list.length === previous) || Date.now() > deadline) return { executions: list.length, unfinished };
		previous = unfinished === 0 ? list.length : -1;
		await sleep(options.quietMs);
	}
}
