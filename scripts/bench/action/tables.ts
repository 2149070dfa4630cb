/** The action-node tables of the bulk runs, (a)–(c), each target beside its figure; (d), (e) and (k) are in footprint-tables.ts. */
import { medianOf, msAsSeconds, spread, statusSummary, yes, type Table } from '../report';
import type { Settings } from '../settings';
import { count, fmt, max, median, ratio } from '../stats';
import { CONCURRENCY, type PairFigure, type Variant } from './runner';
import type { Figures, RateFigure, RateFigures } from './scenarios';

/** Svc per item may cost at most this much more than the floor fixture doing only the request. */
const FLOOR_TARGET = 1.15;

/** Per repetition, `over`'s figure divided by `under`'s (the lists run in the same repetitions). */
function perRepRatios(
	over: PairFigure[],
	under: PairFigure[],
	pick: (figure: PairFigure) => number,
): number[] {
	return over
		.slice(0, under.length)
		.map((figure, index) => ratio(pick(figure), pick(under[index])));
}

export function tableA(figures: Figures, settings: Settings): Table {
	const per = (variant: Variant): number =>
		medianOf(figures[variant], (figure) => figure.perItemMs);
	const columns: Variant[] = ['svc', 'floor', 'floorNoRedirect', 'http', 'raw'];
	// The Svc node sends without follow-redirects, so its floor is the fixture doing the same.
	const overFloor = perRepRatios(
		figures.svc,
		figures.floorNoRedirect,
		(figure) => figure.perItemMs,
	);
	const overFloorMedian = median(overFloor);
	const speedup = ratio(per('http'), per('svc'));
	const cells = (pick: (figure: PairFigure) => number, show: (value: number) => string): string[] =>
		columns.map((variant) => show(medianOf(figures[variant], pick)));
	const source = per('source');
	return {
		title: `(a) ${settings.nA.toLocaleString('en-US')} lead upserts, 0 ms server latency`,
		columns: [
			'measure',
			'Svc node',
			'floor (fixture)',
			'floor, no redirects',
			'HTTP Request node',
			'raw client',
			'target',
			'met',
		],
		rows: [
			[
				'per item, N=1 run subtracted',
				...cells(
					(figure) => figure.perItemMs,
					(value) => fmt(value, 'ms'),
				),
				'',
				'',
			],
			[
				'Svc ÷ floor, no redirects (per item), median (min–max of repetitions)',
				spread(overFloor, (value) => fmt(value, '×')),
				'',
				'',
				'',
				'',
				`≤ ${FLOOR_TARGET}×`,
				yes(overFloorMedian <= FLOOR_TARGET),
			],
			[
				'floor, no redirects ÷ floor (per item)',
				'',
				'',
				fmt(ratio(per('floorNoRedirect'), per('floor')), '×'),
				'',
				'',
				'',
				'',
			],
			[
				'HTTP Request ÷ Svc (per item)',
				fmt(speedup, '×'),
				'',
				'',
				'',
				'',
				'≥ 5×',
				yes(speedup >= 5),
			],
			[
				'Svc ÷ raw client (per item)',
				fmt(ratio(per('svc'), per('raw')), '×'),
				'',
				'',
				'',
				'',
				'',
				'',
			],
			[`run of N=${settings.nA}`, ...cells((figure) => figure.full.ms, msAsSeconds), '', ''],
			[
				'run of N=1 (fixed cost)',
				...cells(
					(figure) => figure.one.ms,
					(value) => fmt(value, 'ms'),
				),
				'',
				'',
			],
			['items per second', ...cells((figure) => 1000 / figure.perItemMs, count), '', ''],
			[
				'max requests in flight (sandbox)',
				...cells((figure) => figure.full.stats.maxInFlight, count),
				'',
				'',
			],
			[
				'n8n wall time of the N run (saving included)',
				...cells((figure) => figure.full.wallMs, msAsSeconds),
				'',
				'',
			],
		],
		notes: [
			`Floor: a bench-only fixture node (scripts/bench/floor, never shipped) that makes one httpRequestWithAuthentication call per item with the same credential (read once per execution and handed to n8n, as the Svc node does), the item as the JSON body and an Idempotency-Key, at concurrency ${CONCURRENCY}, and nothing else. "No redirects" is the same with disableFollowRedirect: true, as the Svc node sends: the target compares with it.`,
			`n8n times are the execution's stoppedAt − startedAt; raw client times are its own clock. Items come from Manual Trigger → Set (array by expression) → Split Out; that source alone costs ${fmt(source, 'ms')} per item (median), included in every n8n column. Without it: Svc ${fmt(per('svc') - source, 'ms')}, floor without redirects ${fmt(per('floorNoRedirect') - source, 'ms')} per item (${fmt(ratio(per('svc') - source, per('floorNoRedirect') - source), '×')}).`,
			'The former target "Svc ≤ 2× a raw keep-alive client" is out of reach for any community node (n8n 2.41 builds a new HTTP agent per request, and the rules forbid node:http); the floor above is the reachable bound.',
		],
	};
}

export function tableB(figures: Figures, settings: Settings): Table {
	const net = (figure: PairFigure): number => figure.full.ms - figure.one.ms;
	const times = (variant: Variant): number[] => figures[variant].map(net);
	const inFlight = (variant: Variant): number =>
		max(figures[variant].map((figure) => figure.full.stats.maxInFlight));
	const speedups = perRepRatios(figures.http, figures.svc, net);
	const [medianSpeedup, worstSpeedup] = [median(speedups), Math.min(...speedups)];
	const floorMs = (settings.nB / CONCURRENCY) * settings.latencyMs;
	const show = (variant: Variant): string => spread(times(variant), msAsSeconds);
	return {
		title: `(b) ${settings.nB.toLocaleString('en-US')} lead upserts, ${settings.latencyMs} ms server latency`,
		columns: [
			'measure',
			'Svc node',
			'HTTP Request node',
			'floor, no redirects',
			'raw client',
			'target',
			'met',
		],
		rows: [
			[
				'repetitions',
				...(['svc', 'http', 'floorNoRedirect', 'raw'] as const).map((variant) =>
					String(figures[variant].length),
				),
				'',
				'',
			],
			[
				'time, N=1 run subtracted: median (min–max)',
				show('svc'),
				show('http'),
				show('floorNoRedirect'),
				show('raw'),
				`bound at concurrency ${CONCURRENCY}: ${msAsSeconds(floorMs)}`,
				'',
			],
			[
				'HTTP Request ÷ Svc (time), median of repetitions',
				fmt(medianSpeedup, '×'),
				'',
				'',
				'',
				'≥ 2×',
				yes(medianSpeedup >= 2),
			],
			[
				'HTTP Request ÷ Svc (time), worst repetition',
				fmt(worstSpeedup, '×'),
				'',
				'',
				'',
				'≥ 2×',
				yes(worstSpeedup >= 2),
			],
			// The best n8n's helper and any client at the same concurrency can do: whether the target is reachable at all.
			[
				'Svc ÷ floor, no redirects (time), median',
				fmt(median(perRepRatios(figures.svc, figures.floorNoRedirect, net)), '×'),
				'',
				'',
				'',
				'',
				'',
			],
			[
				'HTTP Request ÷ raw client (time), median',
				'',
				'',
				'',
				fmt(median(perRepRatios(figures.http, figures.raw, net)), '×'),
				'',
				'',
			],
			[
				'max requests in flight (sandbox, worst run)',
				count(inFlight('svc')),
				count(inFlight('http')),
				count(inFlight('floorNoRedirect')),
				count(inFlight('raw')),
				`Svc ≤ ${CONCURRENCY}`,
				yes(inFlight('svc') <= CONCURRENCY),
			],
		],
		notes: [
			`Per repetition the four run back to back in a rotating order; ratios pair the runs of one repetition. The floor fixture (as in (a)) is what n8n's request helper alone reaches at the same concurrency. Per-repetition HTTP Request ÷ Svc: ${speedups.map((value) => fmt(value, '×')).join(', ')}.`,
		],
	};
}

export function tableC(figures: RateFigures, settings: Settings): Table {
	const floorMs = (settings.nC / settings.ratePerSecond) * 1000;
	const columns: Array<[string, RateFigure[]]> = [
		['Svc node', figures.svc],
		['HTTP Request node', figures.http],
		['HTTP Request, Retry On Fail', figures.httpRetry],
	];
	const cells = (pick: (list: RateFigure[]) => string): string[] =>
		columns.map(([, list]) => pick(list));
	const svcTime = medianOf(figures.svc, (figure) => figure.run.ms);
	const svcFailures = max(figures.svc.map((figure) => figure.failedItems));
	const svcDuplicates = max(figures.svc.map((figure) => figure.duplicates));
	const svcStatusOk = figures.svc.every((figure) => figure.run.status === 'success');
	const errors = figures.http
		.concat(figures.httpRetry)
		.flatMap((figure) => (figure.run.error ? [figure.run.error] : []));
	return {
		title: `(c) ${settings.nC.toLocaleString('en-US')} lead upserts, sandbox limited to ${settings.ratePerSecond} req/s (429 + Retry-After)`,
		columns: ['measure', ...columns.map(([name]) => name), 'target (Svc)', 'met'],
		rows: [
			['repetitions', ...cells((list) => String(list.length)), '', ''],
			[
				'time (median)',
				...cells((list) => msAsSeconds(medianOf(list, (figure) => figure.run.ms))),
				`≤ 1.15 × ${msAsSeconds(floorMs)} = ${msAsSeconds(floorMs * 1.15)}`,
				yes(svcTime <= floorMs * 1.15),
			],
			[
				'time ÷ floor',
				...cells((list) =>
					fmt(
						ratio(
							medianOf(list, (figure) => figure.run.ms),
							floorMs,
						),
						'×',
					),
				),
				'',
				'',
			],
			[
				'execution status',
				...cells((list) => statusSummary(list.map((figure) => figure.run.status))),
				'success',
				yes(svcStatusOk),
			],
			[
				'failed items (not stored, worst run)',
				...cells((list) => count(max(list.map((figure) => figure.failedItems)))),
				'0',
				yes(svcFailures === 0 && svcStatusOk),
			],
			[
				'duplicates (writes applied twice, worst run)',
				...cells((list) => count(max(list.map((figure) => figure.duplicates)))),
				'0',
				yes(svcDuplicates === 0),
			],
			[
				'leads created (median)',
				...cells((list) => count(medianOf(list, (figure) => figure.run.stats.leadsCreated))),
				'',
				'',
			],
			[
				'requests sent (median)',
				...cells((list) => count(medianOf(list, (figure) => figure.run.stats.requests))),
				'',
				'',
			],
			[
				'answered 429 (median)',
				...cells((list) => count(medianOf(list, (figure) => figure.rateLimited))),
				'',
				'',
			],
			[
				'replayed by idempotency key (median)',
				...cells((list) => count(medianOf(list, (figure) => figure.replays))),
				'',
				'',
			],
		],
		notes: [
			`Floor: ${settings.nC} requests at ${settings.ratePerSecond}/s = ${msAsSeconds(floorMs)} (the bucket starts full with ${settings.ratePerSecond} tokens, so the true floor is about 1 s lower). Svc node: default options. HTTP Request node: default options (no batching); "Retry On Fail" = the node setting on with its defaults (3 tries, 1000 ms apart).`,
			...[...new Set(errors)].map((error) => `HTTP Request error: ${error.slice(0, 300)}`),
		],
	};
}
