/**
 * Every execution of a workflow, across the public API's pages (harness/n8n/api's listExecutions
 * reads the first page only; a burst makes thousands).
 */
import type { ExecutionRecord } from '../../harness/n8n/api';
import { UNFINISHED } from '../../harness/n8n/api';
import type { N8nInstance } from '../../harness/n8n/instance';
import { sleep } from '../../harness/wait';

interface ExecutionPage {
	data: ExecutionRecord[];
	nextCursor: string | null;
}

export async function allExecutions(n8n: N8nInstance, workflowId: string, includeData: boolean): Promise<ExecutionRecord[]> {
	const all: ExecutionRecord[] = [];
	let cursor: string | null = null;
	do {
		const query = new URLSearchParams({ workflowId, limit: '250', includeData: String(includeData) });
		if (cursor !== null) query.set('cursor', cursor);
		const page = await n8n.api<ExecutionPage>('GET', `/executions?${query.toString()}`);
		if (page.status !== 200) throw new Error(`GET /api/v1/executions?${query.toString()} answered ${page.status}: ${JSON.stringify(page.body).slice(0, 300)}`);
		all.push(...page.body.data.map((execution) => ({ ...execution, id: String(execution.id) })));
		cursor = page.body.nextCursor;
	} while (cursor !== null);
	return all;
}

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
		const list = await allExecutions(n8n, workflowId, false);
		const unfinished = list.filter((execution) => UNFINISHED.includes(execution.status)).length;
		if ((unfinished === 0 && list.length === previous) || Date.now() > deadline) return { executions: list.length, unfinished };
		previous = unfinished === 0 ? list.length : -1;
		await sleep(options.quietMs);
	}
}
