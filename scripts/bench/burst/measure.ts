/* eslint-disable @n8n/community-nodes/require-node-api-error, no-console -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * One burst into one receiver, and its figures: how fast deliveries were accepted and answered,
 * what the service had to retry, which events started executions (lost, doubled), and what it
 * cost n8n in memory, CPU and database.
 */
import type { BurstResult, DeliveryAttempt } from '../../../sandbox';
import { fireBurst } from '../../../sandbox';
import { nodeOutput } from '../../../harness/n8n/node-results';
import type { ExecutionRecord } from '../../../harness/n8n/executions';
import { isUnfinished, listExecutions } from '../../../harness/n8n/executions';
import type { N8nInstance } from '../../../harness/n8n/instance';
import { until } from '../../../harness/wait';
import { CLAIMED_EVENTS_KEPT } from '../../../nodes/Svc/trigger/exactlyOnce/eventClaims';
import { CpuSplitTracker } from '../cpu';
import { waitUntilSettled, type Settled } from '../executions';
import { RssSampler } from '../rss';
import type { BurstSettings } from '../settings';
import { count, fmt, percentile } from '../stats';
import {
	END_NODE,
	RECEIVER_LABEL,
	setUpReceiver,
	type ReceiverKind,
	type ReceiverSetup,
} from './receivers';

/** How long after the burst executions may take to end before the rest count as unfinished. */
export const SETTLE_TIMEOUT_MS = 5 * 60_000;

/** Which processor one delivery attempt reached, as the balancer logged it. */
export interface DeliveryRoute {
	webhookId: string;
	upstream: string;
}

/** Where a burst lands: one n8n, or a queue-mode topology behind a balancer. */
export interface BurstTarget {
	/** e.g. "single main, SQLite" or "queue, 2 webhook processors". */
	setting: string;
	/** The main: activation and executions. Replaced by a restarted one when it ended during the run. */
	n8n: N8nInstance;
	/** The main is killed when it and its task runner hold more (RSS, KB), as a container's limit would. */
	memoryLimitKb?: number;
	/** The n8n processes whose memory and CPU count, each with its task runner. */
	processes: Array<{ label: string; pid: number }>;
	/** n8n's database size in bytes. */
	databaseBytes(): Promise<number>;
	/** Each attempt's processor, when a balancer spreads them. */
	routes?(): Promise<DeliveryRoute[]>;
}

export interface BurstRun {
	receiver: ReceiverKind;
	setting: string;
	deliveries: number;
	distinctEvents: number;
	/** Deliveries answered 2xx per second, from the first send to the last 2xx answer. */
	acceptedPerSecond: number;
	/** Distinct events that reached the end node, per second from the first send until every execution ended. */
	eventsThroughPerSecond: number;
	/** How the main n8n ended during the run, if it did (it was then restarted to count its executions). */
	n8nEnded?: string;
	answerP50Ms: number;
	answerP99Ms: number;
	answerMaxMs: number;
	attempts: number;
	/** Deliveries that needed more than one attempt. */
	retriedDeliveries: number;
	/** Deliveries never answered 2xx, retries used up. */
	unaccepted: number;
	/** Attempts by status ("error" when there was none). */
	statuses: Record<string, number>;
	executionsStarted: number;
	/** Not ended SETTLE_TIMEOUT_MS after the burst: counted as lost when their event got through nowhere else. */
	executionsUnfinished: number;
	executionsFailed: number;
	/** What the unsuccessful executions failed with, and how often. */
	executionErrors: Record<string, number>;
	/** Distinct events that reached the end node in no execution. */
	lost: number;
	/** Executions beyond the first that an event reached the end node in. */
	doubled: number;
	/** Of those, for events repeated within the trigger's window of recent ids (its promise). */
	doubledWithinWindow: number;
	/** Repeats of an event sent more than the window's number of events earlier (outside the promise). */
	repeatsBeyondWindow: number;
	/** Deliveries of an event that reached another processor than its first delivery (balanced runs only). */
	repeatsOnAnotherProcessor?: number;
	/** Sum of each process's peak (main + task runner), KB. */
	peakRssKb: number;
	peakRssByProcess: Array<[string, number]>;
	databaseGrowthBytes: number;
	/** CPU seconds while the burst ran and its executions ended, per process. */
	cpuSeconds: Array<[string, number]>;
	/** From the first send until every delivery ended. */
	burstMs: number;
	/** From the first send until every execution ended. */
	totalMs: number;
	/** After the burst, LONE_EVENTS events one at a time: from each one's first send until the end node started on it. */
	loneP50Ms: number;
	loneP99Ms: number;
}

interface DeliveryFigures {
	acceptedPerSecond: number;
	answerP50Ms: number;
	answerP99Ms: number;
	answerMaxMs: number;
	retriedDeliveries: number;
	unaccepted: number;
	statuses: Record<string, number>;
}

function deliveryFigures(burst: BurstResult, deliveries: number): DeliveryFigures {
	const attempts = burst.attempts;
	const ended = (attempt: DeliveryAttempt): number =>
		Date.parse(attempt.startedAt) + attempt.durationMs;
	const accepted = attempts.filter((attempt) => attempt.ok);
	const firstSent = Math.min(...attempts.map((attempt) => Date.parse(attempt.startedAt)));
	const lastAccepted = Math.max(...accepted.map(ended));
	const durations = attempts.map((attempt) => attempt.durationMs);
	const statuses: Record<string, number> = {};
	for (const attempt of attempts)
		statuses[String(attempt.status ?? 'error')] =
			(statuses[String(attempt.status ?? 'error')] ?? 0) + 1;
	return {
		acceptedPerSecond: (accepted.length / Math.max(1, lastAccepted - firstSent)) * 1000,
		answerP50Ms: percentile(durations, 50),
		answerP99Ms: percentile(durations, 99),
		answerMaxMs: Math.max(...durations),
		// Every retried delivery has exactly one second attempt.
		retriedDeliveries: attempts.filter((attempt) => attempt.attempt === 2).length,
		unaccepted: deliveries - accepted.length,
		statuses,
	};
}

/** Per event id, how many executions it reached the end node in. */
function runsPerEvent(executions: ExecutionRecord[]): Map<string, number> {
	const runs = new Map<string, number>();
	for (const execution of executions) {
		for (const { json } of nodeOutput(execution, END_NODE)) {
			if (typeof json.id === 'string') runs.set(json.id, (runs.get(json.id) ?? 0) + 1);
		}
	}
	return runs;
}

function errorsOf(executions: ExecutionRecord[]): Record<string, number> {
	const errors: Record<string, number> = {};
	for (const execution of executions) {
		if (execution.status === 'success' || isUnfinished(execution)) continue;
		const message =
			execution.data?.resultData.error?.message ?? `status ${execution.status}, no error recorded`;
		errors[message] = (errors[message] ?? 0) + 1;
	}
	return errors;
}

/**
 * The repeats that came more than `window` distinct events after their event's first delivery,
 * and those events: the Svc Trigger's record keeps the last 2,000 events, so such a repeat may
 * run again.
 */
function repeatsBeyond(
	burst: BurstResult,
	window: number,
): { deliveries: number; events: Set<number> } {
	const events = new Set<number>();
	let deliveries = 0;
	let newest = -1;
	for (const index of burst.sequence) {
		if (index > newest) newest = index;
		else if (newest - index >= window) {
			deliveries++;
			events.add(index);
		}
	}
	return { deliveries, events };
}

/** Deliveries of an event whose processor differs from the one its first delivery reached. */
function repeatsOnAnotherProcessor(routes: DeliveryRoute[]): number {
	const first = new Map<string, string>();
	let elsewhere = 0;
	for (const { webhookId, upstream } of routes) {
		const original = first.get(webhookId);
		if (original === undefined) first.set(webhookId, upstream);
		else if (original !== upstream) elsewhere++;
	}
	return elsewhere;
}

/** Lone events sent after the burst, each once the one before ran. */
const LONE_EVENTS = 20;

/** When the end node started on event `id` in `execution`, if it did (ms since the epoch). */
function endNodeStartFor(execution: ExecutionRecord, id: string): number | undefined {
	const task = execution.data?.resultData.runData[END_NODE]?.[0];
	return task?.data?.main[0]?.some(({ json }) => json.id === id) ? task.startTime : undefined;
}

/**
 * A lone event's latency, as a person waiting on one new lead sees it: LONE_EVENTS events, one at
 * a time once the one before ran, each from its delivery's first send until the end node started
 * on it. Returns the latencies in ms.
 */
async function loneEventLatencies(
	state: ReceiverSetup['sandbox']['state'],
	n8n: N8nInstance,
	workflowId: string,
): Promise<number[]> {
	const latencies: number[] = [];
	for (let number = 1; number <= LONE_EVENTS; number++) {
		const { id } = state.deliveries.emit('lead.created', {
			id: `lead_lone_${number}`,
			email: `lone-${number}@example.com`,
		}).event;
		let started: number | undefined;
		await until(
			`lone event ${number} to reach ${END_NODE}`,
			async () => {
				const newest = await listExecutions(n8n, workflowId, { includeData: true, newest: 5 });
				started = newest.map((execution) => endNodeStartFor(execution, id)).find(Boolean);
				return started !== undefined;
			},
			{ timeoutMs: 60_000, everyMs: 100 },
		);
		const sent = Math.min(
			...state.deliveries
				.attempts()
				.filter((attempt) => attempt.eventId === id)
				.map((attempt) => Date.parse(attempt.startedAt)),
		);
		if (started !== undefined) latencies.push(started - sent);
	}
	return latencies;
}

/** How the executions are waited for: 3 s between looks, at most SETTLE_TIMEOUT_MS. */
const SETTLE = { quietMs: 3_000, timeoutMs: SETTLE_TIMEOUT_MS };

/** Why the main n8n ended: the bench's memory limit (`killedAfterMs` into the burst), or what the process reported. */
function endOf(target: BurstTarget, n8n: N8nInstance, killedAfterMs: number | undefined): string {
	if (killedAfterMs !== undefined)
		return `killed at the memory limit (${fmt((target.memoryLimitKb ?? 0) / 1024 / 1024)} GB), ${fmt(killedAfterMs / 1000)} s into the burst`;
	const exit = n8n.exited();
	return `ended by itself (${exit?.signal ?? `exit code ${String(exit?.code)}`})`;
}

/** Waits for the executions to end, or returns undefined if the main n8n ends first. */
async function settledOrEnded(n8n: N8nInstance, workflowId: string): Promise<Settled | undefined> {
	if (n8n.exited()) return undefined;
	try {
		return await waitUntilSettled(n8n, workflowId, SETTLE);
	} catch (error) {
		if (n8n.exited()) return undefined;
		throw error;
	}
}

/**
 * Sets the receiver up, fires the burst at it, waits for every execution, and takes it down again.
 * If the main n8n ends during the run (killed at the memory limit, or crashed), the figures are
 * those until then, and a restarted n8n counts what its executions did.
 */
export async function burstInto(
	kind: ReceiverKind,
	target: BurstTarget,
	setup: Omit<ReceiverSetup, 'n8n'>,
	burst: BurstSettings,
): Promise<BurstRun> {
	// Every burst starts from the same sandbox: no subscriptions, no earlier attempts, the seeded data.
	setup.sandbox.state.reset();
	const receiver = await setUpReceiver(kind, { ...setup, n8n: target.n8n });
	try {
		const main = target.n8n;
		const databaseBefore = await target.databaseBytes();
		const startedAt = Date.now();
		let killedAfterMs: number | undefined;
		const memoryLimit =
			target.memoryLimitKb === undefined
				? undefined
				: {
						totalKb: target.memoryLimitKb,
						reached: () => {
							killedAfterMs = Date.now() - startedAt;
							void main.kill();
						},
					};
		const samplers = target.processes.map(({ label, pid }) => ({
			label,
			sampler: new RssSampler(pid, 100, pid === main.pid ? memoryLimit : undefined),
		}));
		const cpu = new CpuSplitTracker(
			new Map(target.processes.map(({ label, pid }) => [pid, label])),
			'benchmark (sender, sandbox)',
		);
		for (const { sampler } of samplers) sampler.start();
		cpu.start();
		let fired: BurstResult;
		let settled: Settled | undefined;
		let peaks: Array<[string, number]>;
		let cpuSeconds: Array<[string, number]>;
		try {
			fired = await fireBurst(setup.sandbox.state, { ...burst, seed: 1 });
			settled = await settledOrEnded(main, receiver.workflowId);
		} finally {
			// Stopped even when the burst throws, so no interval outlives it.
			peaks = samplers.map(({ label, sampler }) => [label, sampler.stop().peakTotalKb]);
			cpuSeconds = cpu.stop();
		}
		const totalMs = Date.now() - fired.startedAt;
		const n8nEnded = settled ? undefined : endOf(target, main, killedAfterMs);
		if (!settled) {
			// n8n marks the executions it had not ended as crashed when it starts again.
			target.n8n = await main.restart();
			settled = await waitUntilSettled(target.n8n, receiver.workflowId, SETTLE);
		}
		const databaseGrowthBytes = (await target.databaseBytes()) - databaseBefore;
		const routes = await target.routes?.();
		const executions = await listExecutions(target.n8n, receiver.workflowId, { includeData: true });
		// Once the burst's figures are taken, so that they hold the burst alone.
		const lone = await loneEventLatencies(setup.sandbox.state, target.n8n, receiver.workflowId);
		const runs = runsPerEvent(executions);
		const lost = fired.events.filter((event) => !runs.has(event.id)).length;
		const beyond = repeatsBeyond(fired, CLAIMED_EVENTS_KEPT);
		const extraRuns = (index: number): number =>
			Math.max(0, (runs.get(fired.events[index].id) ?? 0) - 1);
		const run: BurstRun = {
			receiver: kind,
			setting: target.setting,
			deliveries: burst.deliveries,
			distinctEvents: fired.events.length,
			...deliveryFigures(fired, burst.deliveries),
			eventsThroughPerSecond: ((fired.events.length - lost) / totalMs) * 1000,
			n8nEnded,
			attempts: fired.attempts.length,
			executionsStarted: executions.length,
			executionsUnfinished: settled.unfinished,
			executionsFailed: executions.filter(
				(execution) => execution.status !== 'success' && !isUnfinished(execution),
			).length,
			executionErrors: errorsOf(executions),
			lost,
			doubled: fired.events.reduce((sum, _event, index) => sum + extraRuns(index), 0),
			doubledWithinWindow: fired.events.reduce(
				(sum, _event, index) => sum + (beyond.events.has(index) ? 0 : extraRuns(index)),
				0,
			),
			repeatsBeyondWindow: beyond.deliveries,
			repeatsOnAnotherProcessor: routes ? repeatsOnAnotherProcessor(routes) : undefined,
			peakRssKb: peaks.reduce((sum, [, kb]) => sum + kb, 0),
			peakRssByProcess: peaks,
			databaseGrowthBytes,
			cpuSeconds,
			burstMs: fired.finishedAt - fired.startedAt,
			totalMs,
			loneP50Ms: percentile(lone, 50),
			loneP99Ms: percentile(lone, 99),
		};
		console.log(
			`  ${target.setting}, ${RECEIVER_LABEL[kind]}: ${fmt(run.acceptedPerSecond)} accepted/s, p50 ${fmt(run.answerP50Ms)} ms, p99 ${fmt(run.answerP99Ms)} ms, lone event p50 ${fmt(run.loneP50Ms)} ms, ${count(run.executionsStarted)} executions, lost ${run.lost}, doubled ${run.doubled}, retried ${run.retriedDeliveries}, ${fmt(totalMs / 1000)} s${n8nEnded ? `; n8n ${n8nEnded}` : ''}`,
		);
		return run;
	} finally {
		await receiver.stop(target.n8n);
	}
}
