/** The action-node scenarios: what runs, in which order, how often. Their tables are in tables.ts and footprint-tables.ts. */
import type { Sandbox } from '../../../sandbox';
import {
	LEADS_ROUTE,
	pair,
	rotated,
	runOnce,
	type ActionBench,
	type PairFigure,
	type RunOutcome,
	type Variant,
} from './runner';

export type Figures = Record<Variant, PairFigure[]>;

const noFigures = (): Figures => ({
	svc: [],
	http: [],
	floor: [],
	floorNoRedirect: [],
	raw: [],
	source: [],
});

/** (a) Per-item cost with no server latency: Svc, HTTP Request, the floor fixture (both ways), raw. */
export async function scenarioA(bench: ActionBench): Promise<Figures> {
	const { nA, repsA } = bench.settings;
	const figures = noFigures();
	const measured: Variant[] = ['svc', 'http', 'floor', 'floorNoRedirect', 'raw'];
	// Warm-up: imports the workflows' siblings, loads node code and lets the JIT settle.
	for (const variant of [...measured, 'source' as const])
		await runOnce(bench, variant, 100, { tag: '(a) warm' });
	for (let rep = 0; rep < repsA; rep++) {
		for (const variant of [...rotated(measured, rep), 'source' as const]) {
			figures[variant].push(
				await pair(bench, variant, nA, { tag: `(a) #${rep + 1}`, sampleRss: true }),
			);
		}
	}
	return figures;
}

/** (b) The same upserts with 20 ms of server latency, repeated for the spread; the floor fixture shows what n8n's helper alone reaches. */
export async function scenarioB(bench: ActionBench): Promise<Figures> {
	const { nB, repsB, latencyMs } = bench.settings;
	const figures = noFigures();
	const prepare = (sandbox: Sandbox): void =>
		void sandbox.state.faults.set([{ route: LEADS_ROUTE, latencyMs }]);
	for (let rep = 0; rep < repsB; rep++) {
		for (const variant of rotated<Variant>(['svc', 'http', 'floorNoRedirect', 'raw'], rep)) {
			figures[variant].push(await pair(bench, variant, nB, { tag: `(b) #${rep + 1}`, prepare }));
		}
	}
	return figures;
}

export interface RateFigure {
	run: RunOutcome;
	failedItems: number;
	/** Writes applied more than once: creations + updates beyond one per distinct email. */
	duplicates: number;
	replays: number;
	rateLimited: number;
}

export interface RateFigures {
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

/** (c) Under the sandbox's rate limit (429 + Retry-After). */
export async function scenarioC(bench: ActionBench): Promise<RateFigures> {
	const { nC, repsC, ratePerSecond, cHttpReps } = bench.settings;
	// setRate() also refills the bucket, so every run starts from the same full bucket.
	const prepare = (sandbox: Sandbox): void => void sandbox.state.rateLimiter.setRate(ratePerSecond);
	const options = { prepare, expectComplete: false, timeoutMs: 10 * 60_000 };
	const figures: RateFigures = { svc: [], http: [], httpRetry: [] };
	for (let rep = 0; rep < repsC; rep++)
		figures.svc.push(
			rateFigure(await runOnce(bench, 'svc', nC, { ...options, tag: `(c) #${rep + 1}` })),
		);
	for (let rep = 0; rep < cHttpReps; rep++) {
		figures.http.push(
			rateFigure(await runOnce(bench, 'http', nC, { ...options, tag: `(c) #${rep + 1}` })),
		);
		figures.httpRetry.push(
			rateFigure(
				await runOnce(bench, 'http', nC, {
					...options,
					retryOnFail: true,
					tag: `(c) #${rep + 1} RoF`,
				}),
			),
		);
	}
	return figures;
}

export type KeepAlive = Record<'svc' | 'http' | 'raw', RunOutcome>;

/** (k) TCP connections per request, through the counting proxy. */
export async function scenarioK(bench: ActionBench): Promise<KeepAlive> {
	const { nK } = bench.settings;
	const options = { viaProxy: true, tag: '(k)' };
	return {
		svc: await runOnce(bench, 'svc', nK, options),
		http: await runOnce(bench, 'http', nK, options),
		raw: await runOnce(bench, 'raw', nK, options),
	};
}
