/* eslint-disable no-console -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * The run loop of the action-node scenarios (a), (b), (c) and (k): one workflow run (or raw client
 * job) against a freshly reset sandbox, timed, with what the sandbox saw afterwards.
 */
import { DEFAULT_CONCURRENCY } from '../../../nodes/Svc/actions/parameters';
import type { Sandbox, SandboxStats } from '../../../sandbox';
import type { CredentialRef, WorkflowRecord } from '../../../harness/n8n/api';
import type { N8nInstance } from '../../../harness/n8n/instance';
import { sleep } from '../../../harness/wait';
import { collectGarbage } from '../inspector';
import type { CountingProxy } from '../proxy';
import type { RawClient } from '../raw';
import { RssSampler, type RssPeak } from '../rss';
import type { Settings } from '../settings';
import { fmt } from '../stats';
import {
	emailPrefix,
	importBenchWorkflow,
	runTimed,
	type Sink,
	type WorkflowSpec,
} from '../workflows';

/** The Svc node's default, and the raw client's and the floor's. */
export const CONCURRENCY = DEFAULT_CONCURRENCY;
export const LEADS_ROUTE = 'POST /v1/leads';

export type Variant = 'svc' | 'http' | 'floor' | 'floorNoRedirect' | 'raw' | 'source';

export const LABEL: Record<Variant, string> = {
	svc: 'Svc node',
	http: 'HTTP Request node',
	floor: 'floor (fixture)',
	floorNoRedirect: 'floor, no redirects',
	raw: 'raw client',
	source: 'source only',
};

const SINK_OF: Record<Exclude<Variant, 'raw'>, Sink> = {
	svc: 'svc',
	http: 'httpRequest',
	floor: 'floor',
	floorNoRedirect: 'floorNoRedirect',
	source: 'none',
};

export interface ActionBench {
	settings: Settings;
	n8n: N8nInstance;
	sandbox: Sandbox;
	proxy: CountingProxy;
	raw: RawClient;
	apiKey: string;
	/** n8n's inspector on loopback, for a full GC before each run. */
	inspectPort: number;
	credential: CredentialRef;
	/** The same key with the counting proxy as Base URL, for (k). */
	proxyCredential: CredentialRef;
	workflows: Map<string, WorkflowRecord>;
	rawJobs: number;
	/** Every run, for the JSON dump. */
	log: RunOutcome[];
	problems: string[];
}

export interface RunOptions {
	/** Through the counting proxy instead of straight to the sandbox. */
	viaProxy?: boolean;
	retryOnFail?: boolean;
	sampleRss?: boolean;
	/** Applied to the sandbox after its reset, before the run: faults, rate limit. */
	prepare?: (sandbox: Sandbox) => void;
	timeoutMs?: number;
	/** Expect every item stored and status success (false for the rate-limit scenario). */
	expectComplete?: boolean;
	tag: string;
}

export interface RunOutcome {
	tag: string;
	variant: Variant;
	count: number;
	/** n8n: stoppedAt - startedAt; raw: the client's own clock. */
	ms: number;
	wallMs: number;
	status: string;
	error?: string;
	executionId?: string;
	/** Distinct emails of this run that the sandbox holds. */
	stored: number;
	stats: SandboxStats;
	rss?: RssPeak;
	connections?: number;
}

async function workflowFor(bench: ActionBench, spec: WorkflowSpec): Promise<WorkflowRecord> {
	const key = `${spec.sink}|${spec.count}|${spec.credential.id}|${spec.httpBaseUrl}|${spec.retryOnFail === true}`;
	let workflow = bench.workflows.get(key);
	if (!workflow) {
		workflow = await importBenchWorkflow(bench.n8n, spec, key);
		bench.workflows.set(key, workflow);
	}
	return workflow;
}

function storedWithPrefix(sandbox: Sandbox, prefix: string): number {
	const emails = new Set<string>();
	for (const lead of sandbox.state.store.leads.values()) {
		if (typeof lead.email === 'string' && lead.email.startsWith(prefix)) emails.add(lead.email);
	}
	return emails.size;
}

type Timing = Pick<RunOutcome, 'ms' | 'wallMs' | 'status' | 'error' | 'executionId'> & {
	prefix: string;
};

async function runRaw(bench: ActionBench, count: number, baseUrl: string): Promise<Timing> {
	const prefix = `r${++bench.rawJobs}-`;
	const result = await bench.raw.run({
		baseUrl,
		apiKey: bench.apiKey,
		count,
		concurrency: CONCURRENCY,
		prefix,
	});
	const failed = result.failed !== 0;
	return {
		prefix,
		ms: result.ms,
		wallMs: result.ms,
		status: failed ? 'error' : 'success',
		error: failed ? `statuses ${JSON.stringify(result.statuses)}` : undefined,
	};
}

async function runWorkflow(
	bench: ActionBench,
	variant: Exclude<Variant, 'raw'>,
	count: number,
	baseUrl: string,
	options: RunOptions,
): Promise<Timing> {
	const workflow = await workflowFor(bench, {
		sink: SINK_OF[variant],
		count,
		credential: options.viaProxy && variant !== 'http' ? bench.proxyCredential : bench.credential,
		httpBaseUrl: baseUrl,
		retryOnFail: options.retryOnFail,
		concurrency: CONCURRENCY,
	});
	const execution = await runTimed(bench.n8n, workflow, options.timeoutMs ?? 10 * 60_000);
	return {
		prefix: emailPrefix(execution.id),
		ms: execution.engineMs,
		wallMs: execution.wallMs,
		status: execution.status,
		error: execution.error,
		executionId: execution.id,
	};
}

export async function runOnce(
	bench: ActionBench,
	variant: Variant,
	count: number,
	options: RunOptions,
): Promise<RunOutcome> {
	const { sandbox, n8n, proxy } = bench;
	// A clean sandbox per run: same store size, counters and limiter state for every variant.
	sandbox.state.reset();
	options.prepare?.(sandbox);
	proxy.reset();
	if (variant !== 'raw') {
		// Every n8n run starts from a collected heap: its peak RSS and GC work are then its own.
		await collectGarbage(bench.inspectPort);
		await sleep(200);
	}
	const sampler = options.sampleRss
		? new RssSampler(variant === 'raw' ? bench.raw.pid : n8n.pid)
		: undefined;
	const baseUrl = options.viaProxy ? proxy.url : sandbox.url;
	let timing: Timing;
	let peak: RssPeak | undefined;
	sampler?.start();
	try {
		timing =
			variant === 'raw'
				? await runRaw(bench, count, baseUrl)
				: await runWorkflow(bench, variant, count, baseUrl, options);
	} finally {
		// Stopped even when the run throws, so no interval outlives the benchmark.
		peak = sampler?.stop();
	}
	const stats = sandbox.state.stats.snapshot();
	const { prefix, ...measured } = timing;
	const result: RunOutcome = {
		tag: options.tag,
		variant,
		count,
		...measured,
		stored: variant === 'source' ? 0 : storedWithPrefix(sandbox, prefix),
		stats,
		rss: peak,
		connections: options.viaProxy ? proxy.connections() : undefined,
	};
	bench.log.push(result);
	const complete = result.status === 'success' && (variant === 'source' || result.stored === count);
	if ((options.expectComplete ?? true) && !complete) {
		bench.problems.push(
			`${options.tag} ${LABEL[variant]} N=${count}: status ${result.status}, ${result.stored}/${count} stored${result.error ? ` (${result.error.slice(0, 200)})` : ''}`,
		);
	}
	const rss = result.rss ? `, peak RSS ${fmt(result.rss.peakMainKb / 1024)} MB` : '';
	const conns = result.connections !== undefined ? `, ${result.connections} connections` : '';
	console.log(
		`  ${options.tag.padEnd(10)} ${LABEL[variant].padEnd(19)} N=${String(count).padEnd(6)} ${fmt(result.ms / 1000)} s (wall ${fmt(result.wallMs / 1000)} s) ${result.status}, stored ${result.stored}, requests ${stats.requests}, max in flight ${stats.maxInFlight}${rss}${conns}`,
	);
	return result;
}

export interface PairFigure {
	one: RunOutcome;
	full: RunOutcome;
	/** (T(N) - T(1)) / (N - 1): the per-item cost without the fixed start-up cost. */
	perItemMs: number;
}

export async function pair(
	bench: ActionBench,
	variant: Variant,
	count: number,
	options: RunOptions,
): Promise<PairFigure> {
	const one = await runOnce(bench, variant, 1, { ...options, sampleRss: false });
	const full = await runOnce(bench, variant, count, options);
	return { one, full, perItemMs: (full.ms - one.ms) / (count - 1) };
}

/** Rotates the variants each repetition, so no variant always runs on a warmer (or fuller) n8n. */
export function rotated<T>(list: T[], by: number): T[] {
	const shift = by % list.length;
	return [...list.slice(shift), ...list.slice(0, shift)];
}
