/**
 * `npm run bench`: this package's Svc node against n8n's HTTP Request node and a raw Node
 * client, side by side, inside ONE real n8n 2.41.1 (the package installed from its `npm pack`
 * tarball) against the sandbox on loopback. Prints a table (medians of the repetitions) with
 * the targets beside the figures, and writes it as markdown to .tmp/bench-latest.md.
 *
 *   tsx scripts/bench.ts [--reps=3] [--no-build] [--quick]
 *
 *   (a) 10,000 upserts, no server latency: per-item cost after subtracting each workflow's N=1 run
 *   (b) 1,000 upserts at 20 ms server latency: time and the most requests in flight
 *   (c) 2,000 upserts at 50 req/s (429 + Retry-After): time against the floor, failures, duplicates
 *   (d) signature verification of a 1 KB delivery: verifyDelivery against bare node:crypto
 *   (e) peak RSS of n8n during (a), tarball size, time to require the built node
 *   (k) connections per 1,000 requests, through a counting TCP proxy (is keep-alive in effect?)
 *
 * --quick runs small counts once, to check the script itself; its figures mean little.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';

import type { Sandbox, SandboxStats } from '../sandbox';
import { DEMO_KEYS, startSandbox } from '../sandbox';
import type { CredentialRef, WorkflowRecord } from '../harness/n8n/api';
import type { N8nInstance } from '../harness/n8n/instance';
import { importCredential } from '../harness/n8n/api';
import { startN8n } from '../harness/n8n/process';
import { freePort } from '../harness/processes';
import { cpuSnapshot, otherCpu, type OtherCpu } from './bench/cpu';
import { collectGarbage } from './bench/inspector';
import { benchRequire, benchSignature, type RequireResult, type SignatureResult } from './bench/micro';
import { startCountingProxy, type CountingProxy } from './bench/proxy';
import { startRawClient, type RawClient } from './bench/raw';
import { RssSampler, type RssPeak } from './bench/rss';
import { count, fmt, max, median, ratio, sleep } from './bench/stats';
import { emailPrefix, importBenchWorkflow, runTimed, type Sink, type WorkflowSpec } from './bench/workflows';
import { ensureN8nRuntime, type N8nRuntime } from '../harness/n8n-runtime/install';

const run = promisify(execFile);
const ROOT = join(__dirname, '..');
const PACK_DIR = join(ROOT, '.tmp', 'bench', 'pack');
const MARKDOWN_OUT = join(ROOT, '.tmp', 'bench-latest.md');
const JSON_OUT = join(ROOT, '.tmp', 'bench-latest.json');
const API_KEY = DEMO_KEYS[0].key;
const LEADS_ROUTE = 'POST /v1/leads';
/** The Svc node's default, and the raw client's. */
const CONCURRENCY = 8;

interface Settings {
	reps: number;
	nA: number;
	nB: number;
	nC: number;
	nK: number;
	latencyMs: number;
	ratePerSecond: number;
	/** The HTTP Request runs of (c) take a minute each and always end the same way: fewer repetitions. */
	cHttpReps: number;
	build: boolean;
	quick: boolean;
}

function settingsFrom(argv: string[]): Settings {
	const { values } = parseArgs({
		args: argv,
		options: { reps: { type: 'string' }, 'no-build': { type: 'boolean' }, quick: { type: 'boolean' } },
	});
	const quick = values.quick ?? false;
	const reps = Number(values.reps ?? (quick ? 1 : 3));
	if (!Number.isInteger(reps) || reps < 1) throw new Error('--reps must be a whole number, 1 or more');
	return {
		reps,
		nA: quick ? 300 : 10_000,
		nB: quick ? 100 : 1_000,
		nC: quick ? 200 : 2_000,
		nK: quick ? 100 : 1_000,
		latencyMs: 20,
		ratePerSecond: 50,
		cHttpReps: 1,
		build: !(values['no-build'] ?? false),
		quick,
	};
}

// ---------------------------------------------------------------------------------------------
// Runs

type Variant = 'svc' | 'http' | 'raw' | 'source';

const LABEL: Record<Variant, string> = { svc: 'Svc node', http: 'HTTP Request node', raw: 'raw client', source: 'source only' };
const SINK_OF: Record<Exclude<Variant, 'raw'>, Sink> = { svc: 'svc', http: 'httpRequest', source: 'none' };

interface Bench {
	settings: Settings;
	n8n: N8nInstance;
	sandbox: Sandbox;
	proxy: CountingProxy;
	raw: RawClient;
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

interface RunOptions {
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

interface RunOutcome {
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

async function workflowFor(bench: Bench, spec: WorkflowSpec): Promise<WorkflowRecord> {
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

async function runOnce(bench: Bench, variant: Variant, count: number, options: RunOptions): Promise<RunOutcome> {
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
	const sampler = options.sampleRss ? new RssSampler(variant === 'raw' ? bench.raw.pid : n8n.pid) : undefined;
	const baseUrl = options.viaProxy ? proxy.url : sandbox.url;
	let outcome: Pick<RunOutcome, 'ms' | 'wallMs' | 'status' | 'error' | 'executionId'> & { prefix: string };
	let peak: RssPeak | undefined;
	sampler?.start();
	try {
		if (variant === 'raw') {
			const prefix = `r${++bench.rawJobs}-`;
			const result = await bench.raw.run({ baseUrl, apiKey: API_KEY, count, concurrency: CONCURRENCY, prefix });
			outcome = {
				prefix,
				ms: result.ms,
				wallMs: result.ms,
				status: result.failed === 0 ? 'success' : 'error',
				error: result.failed === 0 ? undefined : `statuses ${JSON.stringify(result.statuses)}`,
			};
		} else {
			const workflow = await workflowFor(bench, {
				sink: SINK_OF[variant],
				count,
				credential: options.viaProxy && variant === 'svc' ? bench.proxyCredential : bench.credential,
				httpBaseUrl: baseUrl,
				retryOnFail: options.retryOnFail,
			});
			const execution = await runTimed(n8n, workflow, options.timeoutMs ?? 10 * 60_000);
			outcome = {
				prefix: emailPrefix(execution.id),
				ms: execution.engineMs,
				wallMs: execution.wallMs,
				status: execution.status,
				error: execution.error,
				executionId: execution.id,
			};
		}
	} finally {
		// Stopped even when the run throws, so no interval outlives the benchmark.
		peak = sampler?.stop();
	}
	const stats = sandbox.state.stats.snapshot();
	const result: RunOutcome = {
		tag: options.tag,
		variant,
		count,
		ms: outcome.ms,
		wallMs: outcome.wallMs,
		status: outcome.status,
		error: outcome.error,
		executionId: outcome.executionId,
		stored: variant === 'source' ? 0 : storedWithPrefix(sandbox, outcome.prefix),
		stats,
		rss: peak,
		connections: options.viaProxy ? proxy.connections() : undefined,
	};
	bench.log.push(result);
	const complete = result.status === 'success' && (variant === 'source' || result.stored === count);
	if ((options.expectComplete ?? true) && !complete) {
		bench.problems.push(`${options.tag} ${LABEL[variant]} N=${count}: status ${result.status}, ${result.stored}/${count} stored${result.error ? ` (${result.error.slice(0, 200)})` : ''}`);
	}
	const rss = result.rss ? `, peak RSS ${fmt(result.rss.peakMainKb / 1024)} MB` : '';
	const conns = result.connections !== undefined ? `, ${result.connections} connections` : '';
	console.log(
		`  ${options.tag.padEnd(10)} ${LABEL[variant].padEnd(18)} N=${String(count).padEnd(6)} ${fmt(result.ms / 1000)} s (wall ${fmt(result.wallMs / 1000)} s) ${result.status}, stored ${result.stored}, requests ${stats.requests}, max in flight ${stats.maxInFlight}${rss}${conns}`,
	);
	return result;
}

/** Rotates the variants each repetition, so no variant always runs on a warmer (or fuller) n8n. */
function rotated<T>(list: T[], by: number): T[] {
	const shift = by % list.length;
	return [...list.slice(shift), ...list.slice(0, shift)];
}

// ---------------------------------------------------------------------------------------------
// Scenarios

interface PairFigure {
	one: RunOutcome;
	full: RunOutcome;
	/** (T(N) - T(1)) / (N - 1): the per-item cost without the fixed start-up cost. */
	perItemMs: number;
}

async function pair(bench: Bench, variant: Variant, count: number, options: RunOptions): Promise<PairFigure> {
	const one = await runOnce(bench, variant, 1, { ...options, sampleRss: false });
	const full = await runOnce(bench, variant, count, options);
	return { one, full, perItemMs: (full.ms - one.ms) / (count - 1) };
}

type Figures = Record<Variant, PairFigure[]>;

async function scenarioA(bench: Bench): Promise<Figures> {
	const { nA, reps } = bench.settings;
	const figures: Figures = { svc: [], http: [], raw: [], source: [] };
	// Warm-up: imports the workflows' siblings, loads node code and lets the JIT settle.
	for (const variant of ['svc', 'http', 'raw', 'source'] as const) await runOnce(bench, variant, 100, { tag: '(a) warm', expectComplete: true });
	for (let rep = 0; rep < reps; rep++) {
		for (const variant of [...rotated<Variant>(['svc', 'http', 'raw'], rep), 'source' as const]) {
			figures[variant].push(await pair(bench, variant, nA, { tag: `(a) #${rep + 1}`, sampleRss: true }));
		}
	}
	return figures;
}

async function scenarioB(bench: Bench): Promise<Figures> {
	const { nB, reps, latencyMs } = bench.settings;
	const figures: Figures = { svc: [], http: [], raw: [], source: [] };
	const prepare = (sandbox: Sandbox): void => void sandbox.state.faults.set([{ route: LEADS_ROUTE, latencyMs }]);
	for (let rep = 0; rep < reps; rep++) {
		for (const variant of rotated<Variant>(['svc', 'http', 'raw'], rep)) {
			figures[variant].push(await pair(bench, variant, nB, { tag: `(b) #${rep + 1}`, prepare }));
		}
	}
	return figures;
}

interface RateFigure {
	run: RunOutcome;
	failedItems: number;
	/** Writes applied more than once: creations + updates beyond one per distinct email. */
	duplicates: number;
	replays: number;
	rateLimited: number;
}

interface RateFigures {
	svc: RateFigure[];
	http: RateFigure[];
	httpRetry: RateFigure[];
}

function rateFigure(run: RunOutcome): RateFigure {
	const { stats } = run;
	return {
		run,
		failedItems: run.count - run.stored,
		duplicates: stats.leadsCreated + stats.leadsUpdated - run.stored,
		replays: stats.replays,
		rateLimited: stats.byRoute[LEADS_ROUTE]?.outcomes['429'] ?? 0,
	};
}

async function scenarioC(bench: Bench): Promise<RateFigures> {
	const { nC, reps, ratePerSecond, cHttpReps } = bench.settings;
	// setRate() also refills the bucket, so every run starts from the same full bucket.
	const prepare = (sandbox: Sandbox): void => void sandbox.state.rateLimiter.setRate(ratePerSecond);
	const options = { prepare, expectComplete: false, timeoutMs: 10 * 60_000 };
	const figures: RateFigures = { svc: [], http: [], httpRetry: [] };
	for (let rep = 0; rep < reps; rep++) figures.svc.push(rateFigure(await runOnce(bench, 'svc', nC, { ...options, tag: `(c) #${rep + 1}` })));
	for (let rep = 0; rep < cHttpReps; rep++) {
		figures.http.push(rateFigure(await runOnce(bench, 'http', nC, { ...options, tag: `(c) #${rep + 1}` })));
		figures.httpRetry.push(rateFigure(await runOnce(bench, 'http', nC, { ...options, retryOnFail: true, tag: `(c) #${rep + 1} RoF` })));
	}
	return figures;
}

type KeepAlive = Record<Exclude<Variant, 'source'>, RunOutcome>;

async function scenarioK(bench: Bench): Promise<KeepAlive> {
	const { nK } = bench.settings;
	const options = { viaProxy: true, tag: '(k)' };
	return {
		svc: await runOnce(bench, 'svc', nK, options),
		http: await runOnce(bench, 'http', nK, options),
		raw: await runOnce(bench, 'raw', nK, options),
	};
}

// ---------------------------------------------------------------------------------------------
// Package, machine

async function buildAndPack(build: boolean): Promise<string> {
	if (build) {
		console.log('Building (npm run build)…');
		await run('npm', ['run', 'build', '--silent'], { cwd: ROOT });
	}
	// Our own folder: the e2e suite empties .tmp/pack whenever it packs.
	await rm(PACK_DIR, { recursive: true, force: true });
	await mkdir(PACK_DIR, { recursive: true });
	await run('npm', ['pack', '--pack-destination', PACK_DIR, '--silent'], { cwd: ROOT });
	const [file] = (await readdir(PACK_DIR)).filter((name) => name.endsWith('.tgz'));
	if (!file) throw new Error(`npm pack left no tarball in ${PACK_DIR}`);
	return join(PACK_DIR, file);
}

interface Machine {
	cpuModel: string;
	cores: number;
	ramGiB: number;
	kernel: string;
	node: string;
	n8n: string;
	date: string;
}

async function machine(runtime: N8nRuntime): Promise<Machine> {
	const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
	const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpus()[0]?.model ?? 'unknown';
	const { stdout } = await run(runtime.nodeBin, ['--version']);
	return {
		cpuModel: model,
		cores: cpus().length,
		ramGiB: totalmem() / 1024 ** 3,
		kernel: `Linux ${release()}`,
		node: stdout.trim(),
		n8n: runtime.n8nVersion,
		date: new Date().toISOString(),
	};
}

// ---------------------------------------------------------------------------------------------
// Report

interface Table {
	title: string;
	columns: string[];
	rows: string[][];
	notes: string[];
}

const yes = (met: boolean): string => (met ? 'yes' : '**NO**');
const seconds = (ms: number): string => fmt(ms / 1000, 's');
const mb = (kb: number): string => fmt(kb / 1024, 'MB');

function medianOf<T>(list: T[], pick: (item: T) => number): number {
	return median(list.map(pick));
}

function statusSummary(runs: RunOutcome[]): string {
	const counts = new Map<string, number>();
	for (const run of runs) counts.set(run.status, (counts.get(run.status) ?? 0) + 1);
	return [...counts].map(([status, count]) => `${status} ×${count}`).join(', ');
}

function tableA(figures: Figures, settings: Settings): Table {
	const per = (variant: Variant): number => medianOf(figures[variant], (figure) => figure.perItemMs);
	const [svc, http, raw, source] = [per('svc'), per('http'), per('raw'), per('source')];
	const speedup = ratio(http, svc);
	const overRaw = ratio(svc, raw);
	const cell = (pick: (figure: PairFigure) => number, show: (value: number) => string) =>
		(['svc', 'http', 'raw'] as const).map((variant) => show(medianOf(figures[variant], pick)));
	return {
		title: `(a) ${settings.nA.toLocaleString('en-US')} lead upserts, 0 ms server latency`,
		columns: ['measure', 'Svc node', 'HTTP Request node', 'raw client', 'target', 'met'],
		rows: [
			['per item, N=1 run subtracted', fmt(svc, 'ms'), fmt(http, 'ms'), fmt(raw, 'ms'), '', ''],
			['HTTP Request ÷ Svc (per item)', fmt(speedup, '×'), '', '', '≥ 5×', yes(speedup >= 5)],
			['Svc ÷ raw client (per item)', fmt(overRaw, '×'), '', '', '≤ 2×', yes(overRaw <= 2)],
			[`run of N=${settings.nA}`, ...cell((figure) => figure.full.ms, seconds), '', ''],
			['run of N=1 (fixed cost)', ...cell((figure) => figure.one.ms, (value) => fmt(value, 'ms')), '', ''],
			['items per second', ...cell((figure) => 1000 / figure.perItemMs, count), '', ''],
			['max requests in flight (sandbox)', ...cell((figure) => figure.full.stats.maxInFlight, count), '', ''],
			['n8n wall time of the N run (saving included)', ...cell((figure) => figure.full.wallMs, seconds), '', ''],
		],
		notes: [
			`n8n times are the execution's stoppedAt − startedAt; raw client times are its own clock. Items come from Manual Trigger → Set (array by expression) → Split Out; that source alone costs ${fmt(source, 'ms')} per item (median), included in both n8n columns. Svc per item without it: ${fmt(svc - source, 'ms')} (${fmt(ratio(svc - source, raw), '×')} the raw client).`,
		],
	};
}

function tableB(figures: Figures, settings: Settings): Table {
	const net = (variant: Variant): number => medianOf(figures[variant], (figure) => figure.full.ms - figure.one.ms);
	const inFlight = (variant: Variant): number => max(figures[variant].map((figure) => figure.full.stats.maxInFlight));
	const [svc, http, raw] = [net('svc'), net('http'), net('raw')];
	const speedup = ratio(http, svc);
	const floorMs = (settings.nB / CONCURRENCY) * settings.latencyMs;
	return {
		title: `(b) ${settings.nB.toLocaleString('en-US')} lead upserts, ${settings.latencyMs} ms server latency`,
		columns: ['measure', 'Svc node', 'HTTP Request node', 'raw client', 'target', 'met'],
		rows: [
			['time, N=1 run subtracted', seconds(svc), seconds(http), seconds(raw), `floor at concurrency ${CONCURRENCY}: ${seconds(floorMs)}`, ''],
			['HTTP Request ÷ Svc (time)', fmt(speedup, '×'), '', '', '≥ 2×', yes(speedup >= 2)],
			// The best any client at concurrency 8 can do: shows whether the target is reachable at all.
			['HTTP Request ÷ raw client (time)', '', '', fmt(ratio(http, raw), '×'), '', ''],
			['max requests in flight (sandbox, worst run)', count(inFlight('svc')), count(inFlight('http')), count(inFlight('raw')), 'Svc ≤ 8', yes(inFlight('svc') <= CONCURRENCY)],
		],
		notes: [],
	};
}

function tableC(figures: RateFigures, settings: Settings): Table {
	const floorMs = (settings.nC / settings.ratePerSecond) * 1000;
	const columns: Array<[string, RateFigure[]]> = [
		['Svc node', figures.svc],
		['HTTP Request node', figures.http],
		['HTTP Request, Retry On Fail', figures.httpRetry],
	];
	const cells = (pick: (list: RateFigure[]) => string): string[] => columns.map(([, list]) => pick(list));
	const svcTime = medianOf(figures.svc, (figure) => figure.run.ms);
	const svcFailures = max(figures.svc.map((figure) => figure.failedItems));
	const svcDuplicates = max(figures.svc.map((figure) => figure.duplicates));
	const svcStatusOk = figures.svc.every((figure) => figure.run.status === 'success');
	const errors = figures.http.concat(figures.httpRetry).flatMap((figure) => (figure.run.error ? [figure.run.error] : []));
	return {
		title: `(c) ${settings.nC.toLocaleString('en-US')} lead upserts, sandbox limited to ${settings.ratePerSecond} req/s (429 + Retry-After)`,
		columns: ['measure', ...columns.map(([name]) => name), 'target (Svc)', 'met'],
		rows: [
			['repetitions', ...cells((list) => String(list.length)), '', ''],
			['time (median)', ...cells((list) => seconds(medianOf(list, (figure) => figure.run.ms))), `≤ 1.15 × ${seconds(floorMs)} = ${seconds(floorMs * 1.15)}`, yes(svcTime <= floorMs * 1.15)],
			['time ÷ floor', ...cells((list) => fmt(ratio(medianOf(list, (figure) => figure.run.ms), floorMs), '×')), '', ''],
			['execution status', ...cells((list) => statusSummary(list.map((figure) => figure.run))), 'success', yes(svcStatusOk)],
			['failed items (not stored, worst run)', ...cells((list) => count(max(list.map((figure) => figure.failedItems)))), '0', yes(svcFailures === 0 && svcStatusOk)],
			['duplicates (writes applied twice, worst run)', ...cells((list) => count(max(list.map((figure) => figure.duplicates)))), '0', yes(svcDuplicates === 0)],
			['leads created (median)', ...cells((list) => count(medianOf(list, (figure) => figure.run.stats.leadsCreated))), '', ''],
			['requests sent (median)', ...cells((list) => count(medianOf(list, (figure) => figure.run.stats.requests))), '', ''],
			['answered 429 (median)', ...cells((list) => count(medianOf(list, (figure) => figure.rateLimited))), '', ''],
			['replayed by idempotency key (median)', ...cells((list) => count(medianOf(list, (figure) => figure.replays))), '', ''],
		],
		notes: [
			`Floor: ${settings.nC} requests at ${settings.ratePerSecond}/s = ${seconds(floorMs)} (the bucket starts full with ${settings.ratePerSecond} tokens, so the true floor is about 1 s lower). Svc node: default options. HTTP Request node: default options (no batching); "Retry On Fail" = the node setting on with its defaults (3 tries, 1000 ms apart).`,
			...[...new Set(errors)].map((error) => `HTTP Request error: ${error.slice(0, 300)}`),
		],
	};
}

function tableD(signature: SignatureResult): Table {
	return {
		title: `(d) signature verification of a ${signature.bodyBytes}-byte delivery`,
		columns: ['measure', 'verifyDelivery (dist)', 'raw: node:crypto HMAC + timingSafeEqual', 'reference: raw with a KeyObject', 'target', 'met'],
		rows: [
			['verifications per second', count(signature.nodePerSecond), count(signature.rawPerSecond), count(signature.keyObjectPerSecond), '', ''],
			['verifyDelivery ÷ raw', fmt(signature.ratio, '×'), '', '', '≥ 0.8×', yes(signature.ratio >= 0.8)],
		],
		notes: [
			'Raw: the key decoded once into a Buffer, HMAC-SHA256 over "<id>.<timestamp>." then the body Buffer, base64 decode of the signature, timingSafeEqual. verifyDelivery also checks the headers and the timestamp window. Reference: the raw verifier given a KeyObject made once with createSecretKey(), which on this Node spares most of the cost of each HMAC.',
		],
	};
}

function tableE(figures: Figures, tarballKb: number, required: RequireResult): Table {
	const rss = (variant: Variant, pick: (peak: RssPeak) => number): number =>
		median(figures[variant].flatMap((figure) => (figure.full.rss ? [pick(figure.full.rss)] : [])));
	const svcTotal = rss('svc', (peak) => peak.peakTotalKb);
	const httpTotal = rss('http', (peak) => peak.peakTotalKb);
	return {
		title: '(e) memory, package size, load time',
		columns: ['measure', 'Svc node', 'HTTP Request node', 'raw client', 'target', 'met'],
		rows: [
			['peak RSS during (a), n8n main + children', mb(svcTotal), mb(httpTotal), mb(rss('raw', (peak) => peak.peakTotalKb)), '≤ HTTP Request', yes(svcTotal <= httpTotal)],
			['  of which n8n main process', mb(rss('svc', (peak) => peak.peakMainKb)), mb(rss('http', (peak) => peak.peakMainKb)), '', '', ''],
			['  of which children (task runner)', mb(rss('svc', (peak) => peak.peakChildrenKb)), mb(rss('http', (peak) => peak.peakChildrenKb)), '', '', ''],
			['RSS growth during the run (peak − start)', mb(rss('svc', (peak) => peak.peakMainKb - peak.startMainKb)), mb(rss('http', (peak) => peak.peakMainKb - peak.startMainKb)), mb(rss('raw', (peak) => peak.peakMainKb - peak.startMainKb)), '', ''],
			['packed tarball', fmt(tarballKb, 'KB'), '', '', '≤ 100 KB', yes(tarballKb <= 100)],
			['require dist/nodes/Svc/Svc.node.js (n8n-workflow loaded)', fmt(required.nodeMs, 'ms'), '', '', '≤ 50 ms', yes(required.nodeMs <= 50)],
			['  + new Svc()', fmt(required.nodeAndInstanceMs, 'ms'), '', '', '', ''],
			['  cold, fresh process incl. n8n-workflow', fmt(required.coldTotalMs, 'ms'), '', '', '', ''],
		],
		notes: [
			`RSS: /proc/<pid>/status VmRSS every 100 ms during each N run of (a), each started right after a forced full GC in n8n, median over repetitions; the raw column is the raw client's own process. Require: median of ${required.samples} fresh processes on the runtime's Node; n8n-workflow alone takes ${fmt(required.workflowLibMs, 'ms')}.`,
		],
	};
}

function tableK(keepAlive: KeepAlive): Table {
	const runs = [keepAlive.svc, keepAlive.http, keepAlive.raw];
	const per1000 = (run: RunOutcome): number => ratio((run.connections ?? 0) * 1000, run.stats.requests);
	// Reuse means far fewer connections than requests; one per request means none.
	const reused = (run: RunOutcome): string => ((run.connections ?? 0) * 2 < run.stats.requests ? 'yes' : 'no');
	return {
		title: `(k) keep-alive: TCP connections per 1,000 requests (through a counting proxy, N=${keepAlive.svc.count})`,
		columns: ['measure', 'Svc node', 'HTTP Request node', 'raw client'],
		rows: [
			['connections per 1,000 requests', ...runs.map((run) => count(per1000(run)))],
			['connections / requests', ...runs.map((run) => `${run.connections} / ${run.stats.requests}`)],
			['connections reused (keep-alive in effect)', ...runs.map(reused)],
		],
		notes: ['Reported, no target. The raw client shows what keep-alive looks like: one connection per concurrent worker.'],
	};
}

function markdownTable(table: Table): string {
	const widths = table.columns.map((column, index) => Math.max(column.length, ...table.rows.map((row) => (row[index] ?? '').length)));
	const line = (cells: string[]): string => `| ${cells.map((cell, index) => (cell ?? '').padEnd(widths[index])).join(' | ')} |`;
	return [
		`### ${table.title}`,
		'',
		line(table.columns),
		`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
		...table.rows.map(line),
		...(table.notes.length > 0 ? ['', ...table.notes.map((note) => `- ${note}`)] : []),
		'',
	].join('\n');
}

// ---------------------------------------------------------------------------------------------

async function main(argv: string[]): Promise<void> {
	const settings = settingsFrom(argv);
	const started = performance.now();
	const cores = cpus().length;
	const phases: Array<{ name: string; ms: number; other: OtherCpu }> = [];
	const phase = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
		const before = cpuSnapshot();
		console.log(`\n${name}`);
		const result = await work();
		const after = cpuSnapshot();
		phases.push({ name, ms: after.at - before.at, other: otherCpu(before, after, cores) });
		return result;
	};

	const tarball = await phase('package: build and npm pack', async () => await buildAndPack(settings.build));
	const tarballKb = (await stat(tarball)).size / 1024;
	const runtime = await ensureN8nRuntime('v2', { verbose: false });
	const host = await machine(runtime);
	const signature = await phase('(d) signature verification', async () => await Promise.resolve(benchSignature(join(ROOT, 'dist'), settings.quick ? 1 : 3, settings.quick ? 300 : 1000)));
	const required = await phase('(e) require time', async () => await benchRequire(runtime.nodeBin, ROOT, settings.quick ? 3 : 9));

	const sandbox = await startSandbox({});
	const stops: Array<() => Promise<void>> = [async () => await sandbox.close()];
	try {
		const proxy = await startCountingProxy(Number(new URL(sandbox.url).port));
		stops.unshift(async () => await proxy.close());
		const raw = await startRawClient();
		stops.unshift(async () => await raw.stop());
		const inspectPort = await freePort();
		const n8n = await phase('start n8n', async () =>
			await startN8n({
				runtime,
				packageTarball: tarball,
				protocol: 'http',
				logLevel: 'warn',
				expectNodeTypes: ['n8n-nodes-svc.svc'],
				// Loopback only; used for nothing but HeapProfiler.collectGarbage between runs.
				env: { NODE_OPTIONS: `--inspect=127.0.0.1:${inspectPort}` },
			}),
		);
		stops.unshift(async () => await n8n.stop());
		const bench: Bench = {
			settings,
			n8n,
			sandbox,
			proxy,
			raw,
			inspectPort,
			credential: await importCredential(n8n, { name: 'Svc bench', type: 'svcApi', data: { apiKey: API_KEY, baseUrl: sandbox.url } }),
			proxyCredential: await importCredential(n8n, { name: 'Svc bench via proxy', type: 'svcApi', data: { apiKey: API_KEY, baseUrl: proxy.url } }),
			workflows: new Map(),
			rawJobs: 0,
			log: [],
			problems: [],
		};

		const a = await phase(`(a) ${settings.nA} upserts, 0 ms latency, ${settings.reps} repetition(s)`, async () => await scenarioA(bench));
		const b = await phase(`(b) ${settings.nB} upserts, ${settings.latencyMs} ms latency`, async () => await scenarioB(bench));
		const c = await phase(`(c) ${settings.nC} upserts at ${settings.ratePerSecond} req/s`, async () => await scenarioC(bench));
		const k = await phase('(k) keep-alive through the counting proxy', async () => await scenarioK(bench));

		const tables = [tableA(a, settings), tableB(b, settings), tableC(c, settings), tableD(signature), tableE(a, tarballKb, required), tableK(k)];
		const totalMs = performance.now() - started;
		const measured = phases.filter((entry) => entry.name.startsWith('('));
		const otherSeconds = measured.reduce((sum, entry) => sum + entry.other.seconds, 0);
		const otherShare = otherSeconds / ((measured.reduce((sum, entry) => sum + entry.ms, 0) / 1000) * cores);
		const header = [
			'## Benchmark',
			'',
			`Machine: ${host.cpuModel}, ${host.cores} cores, ${fmt(host.ramGiB)} GiB RAM, ${host.kernel}. Node ${host.node}, n8n ${host.n8n}. ${host.date}. Other processes on the machine used ${fmt(otherSeconds, 'CPU-s')} during the measurements (${fmt(otherShare * 100)} % of the ${cores} cores)${otherShare > 0.05 ? ': figures may be skewed' : ''}.`,
			'',
			`One n8n (package installed from its npm pack tarball, log level warn, SQLite, a forced full GC before every run) and the sandbox on loopback; ${settings.reps} repetition(s), medians unless noted. Svc node: resource lead, operation upsert, Map Automatically, default options (concurrency ${CONCURRENCY}). HTTP Request node v4.2: POST /v1/leads with the Svc API credential (predefined credential type), JSON body \`{{ $json }}\`, a UUID-shaped Idempotency-Key built from the execution id and item index, default options. Raw client: node:http, keep-alive agent, concurrency ${CONCURRENCY}, in its own process. \`npm run bench\` took ${fmt(totalMs / 60_000)} min${settings.quick ? ' (--quick: small counts, figures not meaningful)' : ''}.`,
			'',
		].join('\n');
		const timing = [
			'#### Run time per phase',
			'',
			...phases.map(({ name, ms, other }) => `- ${name}: ${seconds(ms)} (other processes: ${fmt(other.seconds, 'CPU-s')}, ${fmt(other.share * 100)} %)`),
			`- total: ${seconds(totalMs)}`,
			'',
		].join('\n');
		const problems = bench.problems.length > 0 ? ['#### Problems seen', '', ...bench.problems.map((problem) => `- ${problem}`), ''].join('\n') : '';
		const markdown = [header, ...tables.map(markdownTable), problems, timing].filter(Boolean).join('\n');

		console.log(`\n${markdown}`);
		await mkdir(join(ROOT, '.tmp'), { recursive: true });
		await writeFile(MARKDOWN_OUT, markdown);
		await writeFile(JSON_OUT, `${JSON.stringify({ settings, machine: host, otherCpuSeconds: otherSeconds, tarballKb, signature, required, phases, runs: bench.log }, null, '\t')}\n`);
		console.log(`Written: ${MARKDOWN_OUT} (every run: ${JSON_OUT})`);
	} finally {
		for (const stop of stops) await stop().catch((error: unknown) => console.error(`stop failed: ${String(error)}`));
	}
}

main(process.argv.slice(2)).catch((error: unknown) => {
	console.error(error instanceof Error ? (error.stack ?? error.message) : error);
	process.exitCode = 1;
});
