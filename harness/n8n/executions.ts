/** A workflow's executions through n8n's public API: listing, reading, waiting for them to end. */
import type { ExecutionStatus, IRunExecutionData } from 'n8n-workflow';
import { failedCall as fail } from '../http';
import { poll, until, type PollOptions } from '../wait';
import type { N8nInstance } from './instance';

export interface ExecutionRecord {
	id: string;
	finished: boolean;
	mode: string;
	status: ExecutionStatus;
	startedAt: string;
	stoppedAt: string | null;
	workflowId: string;
	retryOf?: string | null;
	/** Set on a run once a Retry of it succeeded. */
	retrySuccessId?: string | null;
	/** Only with includeData. */
	data?: IRunExecutionData;
}

interface ExecutionList {
	data: ExecutionRecord[];
	nextCursor: string | null;
}

/** The workflow's executions across the public API's pages; running ones with `withRunning` or status `running`. */
export async function listExecutions(
	n8n: N8nInstance,
	workflowId: string,
	options: {
		includeData?: boolean;
		status?: ExecutionStatus;
		withRunning?: boolean;
		/** Only the newest this many (one page, up to 250). */
		newest?: number;
	} = {},
): Promise<ExecutionRecord[]> {
	const all: ExecutionRecord[] = options.withRunning
		? await listExecutions(n8n, workflowId, { ...options, status: 'running', withRunning: false })
		: [];
	let cursor: string | null = null;
	do {
		const query = new URLSearchParams({
			workflowId,
			limit: String(options.newest ?? 250),
			includeData: String(options.includeData ?? false),
		});
		if (options.status) query.set('status', options.status);
		if (cursor !== null) query.set('cursor', cursor);
		const result = await n8n.api<ExecutionList>('GET', `/executions?${query.toString()}`);
		if (result.status !== 200) fail(`GET /api/v1/executions?${query.toString()}`, result);
		all.push(...result.body.data.map((execution) => ({ ...execution, id: String(execution.id) })));
		cursor = options.newest === undefined ? result.body.nextCursor : null;
	} while (cursor !== null);
	return all;
}

/**
 * All of the workflow's executions once none runs. n8n's public list leaves out the runs active
 * in the process asked: in queue mode a run still waiting for a worker (`new`, active on the main)
 * is in neither read, so a queue test that must count such runs waits for the count it expects.
 */
export async function settledExecutions(
	n8n: N8nInstance,
	workflowId: string,
	timeoutMs = 60_000,
): Promise<ExecutionRecord[]> {
	let executions: ExecutionRecord[] = [];
	let previous: string | undefined;
	await until(
		`every execution of workflow ${workflowId} to end`,
		async () => {
			executions = await listExecutions(n8n, workflowId, { withRunning: true });
			// n8n stores a run's end before it drops the run from its active ones, which the public
			// list leaves out: in between the run is in neither read. Two reads alike make that unlikely.
			const key = executions.map(stateOf).join(',');
			const settled = !executions.some(isUnfinished) && key === previous;
			previous = key;
			return settled;
		},
		{ timeoutMs, everyMs: 250 },
	);
	return executions;
}

/**
 * Every execution of the workflow once none is running and `complete` holds of them, each with its
 * data, oldest first: for a test that tells runs apart by what they ran rather than by their place
 * in the list (a retried delivery can add one that stopped at the trigger).
 */
export async function settledExecutionsWithData(
	n8n: N8nInstance,
	workflowId: string,
	complete: (executions: ExecutionRecord[]) => boolean,
	timeoutMs = 60_000,
): Promise<ExecutionRecord[]> {
	const deadline = Date.now() + timeoutMs;
	// Each ended run's data is read once: it does not change after the end.
	const read = new Map<string, ExecutionRecord>();
	let withData: ExecutionRecord[] = [];
	await until(
		`the runs looked for in workflow ${workflowId}`,
		async () => {
			const executions = await settledExecutions(
				n8n,
				workflowId,
				Math.max(deadline - Date.now(), 1_000),
			);
			const oldestFirst = [...executions].sort((a, b) => Number(a.id) - Number(b.id));
			withData = await Promise.all(
				oldestFirst.map(async (execution) => {
					const known = read.get(stateOf(execution)) ?? (await withFinalData(n8n, execution.id));
					read.set(stateOf(execution), known);
					return known;
				}),
			);
			return complete(withData);
		},
		{ timeoutMs, everyMs: 500 },
	);
	return withData;
}

export async function getExecution(
	n8n: N8nInstance,
	executionId: string,
	includeData = true,
): Promise<ExecutionRecord> {
	const result = await n8n.api<ExecutionRecord>(
		'GET',
		`/executions/${executionId}?includeData=${String(includeData)}`,
	);
	if (result.status !== 200) fail(`GET /api/v1/executions/${executionId}`, result);
	return { ...result.body, id: String(result.body.id) };
}

/**
 * An ended execution with its final data. n8n 1.123 on SQLite stores a run's end and its data in
 * two writes (`updateExistingExecution`), so a read right after the end can find the data the run
 * started with: no node's result and no error (the likeliest reading of a failure seen once under
 * load: an `error` run whose failing node had no error). Reads again until the data says how the
 * run ended.
 */
export async function withFinalData(
	n8n: N8nInstance,
	executionId: string,
	timeoutMs = 15_000,
): Promise<ExecutionRecord> {
	let execution: ExecutionRecord | undefined;
	return await poll(
		async () => {
			execution = await getExecution(n8n, executionId, true);
			const result = execution.data?.resultData;
			// n8n marks a run crashed without writing its data again.
			const final =
				execution.status === 'crashed' ||
				result?.lastNodeExecuted !== undefined ||
				result?.error !== undefined;
			return final ? execution : undefined;
		},
		{
			timeoutMs,
			everyMs: 100,
			timedOut: () => {
				throw new Error(
					`Execution ${executionId} ended ${execution?.status ?? ''} but its stored data names no last node and no error within ${timeoutMs} ms`,
				);
			},
		},
	);
}

/** An execution's id and status: what a poll compares to tell whether anything changed. */
const stateOf = ({ id, status }: ExecutionRecord): string => `${id} ${status}`;

/** Statuses of an execution that has not come to an end yet. */
const UNFINISHED: readonly ExecutionStatus[] = ['new', 'running', 'unknown'];

/** Whether the execution has not come to an end yet. */
export const isUnfinished = (execution: { status: ExecutionStatus }): boolean =>
	UNFINISHED.includes(execution.status);

/** Where waitForExecutions reads a workflow's executions, newest first: n8n's public list unless told. */
export type ExecutionSource = (
	workflowId: string,
	options: { includeData?: boolean },
) => Promise<ExecutionRecord[]>;

/** One read of a workflow's executions, with or without their data. */
export type ExecutionReader = (includeData: boolean) => Promise<ExecutionRecord[]>;

/**
 * A reader for polls over many executions that asks n8n for their data only when it is of use:
 * while some run has not ended (`waiting`), it answers the list without data; once none is, the
 * list with data, read again only when an id or a status changed. The data of hundreds of runs,
 * read twice a second, cost n8n more than the runs the crash tests waited for.
 */
export function dataOnceEnded(
	read: ExecutionReader,
): (waiting: (execution: ExecutionRecord) => boolean) => Promise<ExecutionRecord[]> {
	const keyOf = (executions: ExecutionRecord[]) => executions.map(stateOf).join(',');
	let withData: { key: string; executions: ExecutionRecord[] } | undefined;
	return async (waiting) => {
		const brief = await read(false);
		if (brief.some(waiting)) return brief;
		if (withData?.key !== keyOf(brief)) {
			const executions = await read(true);
			withData = { key: keyOf(executions), executions };
		}
		return withData.executions;
	};
}

/** Polls until the workflow has at least `count` executions, none of them still running; returns them oldest first. */
export async function waitForExecutions(
	n8n: N8nInstance,
	workflowId: string,
	count: number,
	timeoutMs = 15_000,
	options: { includeData?: boolean; source?: ExecutionSource } = {},
): Promise<ExecutionRecord[]> {
	const {
		source = async (id, listOptions) => await listExecutions(n8n, id, listOptions),
		...listOptions
	} = options;
	let seen: ExecutionRecord[] = [];
	return await poll(
		async () => {
			seen = await source(workflowId, listOptions);
			return seen.length >= count && !seen.some(isUnfinished) ? seen.reverse() : undefined;
		},
		{
			timeoutMs,
			everyMs: 100,
			timedOut: () => {
				const states =
					seen.map((execution) => `${execution.id}:${execution.status}`).join(', ') || 'none';
				throw new Error(
					`Workflow ${workflowId}: expected ${count} finished execution(s) within ${timeoutMs} ms, saw ${states}`,
				);
			},
		},
	);
}

/**
 * Polls execution `executionId` without its data (cheap for n8n while it runs) until `ended`
 * holds for its row, and returns that row. 404 until the row is written and 503 while n8n is too
 * busy to answer (heavy runs) mean: look again.
 */
export async function waitForExecutionEnd<
	Row extends { status: ExecutionStatus },
	Ended extends Row,
>(
	n8n: N8nInstance,
	executionId: string,
	options: Pick<PollOptions<Ended>, 'timeoutMs' | 'everyMs'> & {
		ended: (row: Row) => row is Ended;
	},
): Promise<Ended> {
	let last = 'none';
	return await poll(
		async () => {
			const row = await n8n.api<Row>('GET', `/executions/${executionId}?includeData=false`);
			if (row.status === 200 && options.ended(row.body)) return row.body;
			if (![200, 404, 503].includes(row.status)) fail(`GET /api/v1/executions/${executionId}`, row);
			last =
				row.status === 200
					? `status ${row.body.status}`
					: `HTTP ${row.status} ${JSON.stringify(row.body).slice(0, 200)}`;
			return undefined;
		},
		{
			timeoutMs: options.timeoutMs,
			everyMs: options.everyMs,
			timedOut: () => {
				throw new Error(
					`Execution ${executionId} did not finish within ${options.timeoutMs} ms (last answer: ${last})`,
				);
			},
		},
	);
}
