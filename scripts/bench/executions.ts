/** Waiting for the thousands of executions a burst starts. */
import { isUnfinished, listExecutions } from '../../harness/n8n/executions';
import type { N8nInstance } from '../../harness/n8n/instance';
import { poll } from '../../harness/wait';

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
export async function waitUntilSettled(
	n8n: N8nInstance,
	workflowId: string,
	options: { quietMs: number; timeoutMs: number },
): Promise<Settled> {
	let last: Settled = { executions: 0, unfinished: 0 };
	let previous = -1;
	return await poll(
		async () => {
			const list = await listExecutions(n8n, workflowId);
			last = {
				executions: list.length,
				unfinished: list.filter(isUnfinished).length,
			};
			if (last.unfinished === 0 && list.length === previous) return last;
			previous = last.unfinished === 0 ? list.length : -1;
			return undefined;
		},
		{ timeoutMs: options.timeoutMs, everyMs: options.quietMs, timedOut: () => last },
	);
}
