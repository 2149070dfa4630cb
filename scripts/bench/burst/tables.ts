/** The burst tables (f) and (f-queue), each receiver's figures side by side; the targets' table is in targets-table.ts. */
import { mb, milliseconds, msAsSeconds, yes, type Table } from '../report';
import type { BurstSettings } from '../settings';
import { count, fmt, ratio } from '../stats';
import { SETTLE_TIMEOUT_MS, type BurstRun } from './measure';
import { RECEIVER_LABEL } from './receivers';

/** The same measures for every column of a burst table. */
function measureRows(runs: BurstRun[]): Array<[string, string[]]> {
	const cells = (show: (run: BurstRun) => string): string[] => runs.map(show);
	return [
		[
			'deliveries (distinct events)',
			cells((run) => `${count(run.deliveries)} (${count(run.distinctEvents)})`),
		],
		['n8n ended during the run', cells((run) => run.n8nEnded ?? 'no')],
		['accepted per second', cells((run) => fmt(run.acceptedPerSecond))],
		[
			'events through per second (reached the end, until every execution ended)',
			cells((run) => fmt(run.eventsThroughPerSecond)),
		],
		['answer time p50', cells((run) => milliseconds(run.answerP50Ms))],
		['answer time p99', cells((run) => milliseconds(run.answerP99Ms))],
		['answer time, slowest', cells((run) => milliseconds(run.answerMaxMs))],
		[
			'lone event after the burst, sent until its run past the trigger, p50 / p99',
			cells((run) => `${milliseconds(run.loneP50Ms)} / ${milliseconds(run.loneP99Ms)}`),
		],
		['executions started', cells((run) => count(run.executionsStarted))],
		['executions not successful', cells((run) => count(run.executionsFailed))],
		[
			`executions unfinished ${SETTLE_TIMEOUT_MS / 60_000} min after the burst`,
			cells((run) => count(run.executionsUnfinished)),
		],
		['events lost (reached the end in no execution)', cells((run) => count(run.lost))],
		['events doubled (extra executions reaching the end)', cells((run) => count(run.doubled))],
		[
			'  of which repeated within the last 2,000 events',
			cells((run) => count(run.doubledWithinWindow)),
		],
		[
			'  repeats sent more than 2,000 events after the first',
			cells((run) => count(run.repeatsBeyondWindow)),
		],
		['deliveries the service retried', cells((run) => count(run.retriedDeliveries))],
		['deliveries never accepted', cells((run) => count(run.unaccepted))],
		['peak RSS, n8n processes', cells((run) => mb(run.peakRssKb))],
		['database growth', cells((run) => mb(run.databaseGrowthBytes / 1024))],
		['burst, first send to last answer', cells((run) => msAsSeconds(run.burstMs))],
		['until every execution ended', cells((run) => msAsSeconds(run.totalMs))],
	];
}

/** "n8n main + task runner 41.2 CPU-s, benchmark 9.1": where the CPU went during one run. */
function cpuNote(run: BurstRun): string {
	const shown = run.cpuSeconds
		.filter(([, used]) => used >= 0.05)
		.map(([label, used]) => `${label} ${fmt(used)}`);
	return `${run.setting}, ${RECEIVER_LABEL[run.receiver]}: ${shown.join(', ')} CPU-s`;
}

function statusNote(run: BurstRun): string {
	const statuses = Object.entries(run.statuses)
		.map(([status, times]) => `${status} ×${count(times)}`)
		.join(', ');
	return `${run.setting}, ${RECEIVER_LABEL[run.receiver]}: ${count(run.attempts)} attempts answered ${statuses}`;
}

function failureNote(run: BurstRun): string[] {
	const errors = Object.entries(run.executionErrors).map(
		([message, times]) => `${message.slice(0, 160)} (×${count(times)})`,
	);
	return errors.length > 0
		? [
				`${run.setting}, ${RECEIVER_LABEL[run.receiver]}: unsuccessful executions failed with ${errors.join('; ')}.`,
			]
		: [];
}

function burstNotes(runs: BurstRun[], burst: BurstSettings): string[] {
	return [
		'Repeats pick any earlier event, so some come more than 2,000 distinct events after the first delivery: the record the Svc Trigger keeps in the n8n database holds the last 2,000 events (and each n8n process remembers the last 10,000 it claimed); a repeat beyond that runs again by design. The target "0 doubled" applies to repeats within the last 2,000. Remove Duplicates keeps 10,000 values by default.',
		`The sandbox sends ${count(burst.deliveries)} signed lead.created deliveries at concurrency ${burst.concurrency}; ${count(burst.repeats)} of them repeat an earlier event (same webhook-id, signed anew) at places fixed by a seed, the same for every receiver. Retries follow the contract (15 s timeout; again after 1 s, 5 s, 30 s, 2 min). Answer times are per attempt, as the sandbox measured them (TLS handshake included: the service opens a connection per delivery).`,
		'Peer: examples/receive-signed-events-without-this-package.json, as n8n users build it: the Webhook node answers before the workflow runs (its default "Immediately"), so it accepts every delivery, a forged one too, and the Code node\'s check and Remove Duplicates decide afterwards, in the execution. The Svc Trigger checks the signature before n8n stores an execution, answers from inside that execution, and stops a repeat at the trigger (a repeat its process knows gets no execution).',
		`CPU while the burst ran and until its executions ended: ${runs.map(cpuNote).join('; ')}.`,
		`Answers: ${runs.map(statusNote).join('; ')}.`,
		...runs.flatMap(failureNote),
	];
}

/** The setting under which n8n builds an expression isolate only when an expression is evaluated. */
export const LAZY_ISOLATES = 'N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE';

/** CPU seconds of the n8n processes (each labelled "n8n …", task runners included); the benchmark's own and helpers such as esbuild left out. */
export function n8nCpuSeconds(run: BurstRun): number {
	return run.cpuSeconds
		.filter(([label]) => label.startsWith('n8n '))
		.reduce((sum, [, used]) => sum + used, 0);
}

/** Deliveries answered 2xx, repeats included. */
export function acceptedDeliveries(run: BurstRun): number {
	return Object.entries(run.statuses)
		.filter(([status]) => /^2\d\d$/.test(status))
		.reduce((sum, [, times]) => sum + times, 0);
}

export const cpuMsPerAccepted = (run: BurstRun): number =>
	(n8nCpuSeconds(run) * 1000) / Math.max(1, acceptedDeliveries(run));

export const FLOORS_NOTE =
	'Floors: bench-only community triggers (scripts/bench/floor/, never shipped) that emit the body, with no signature check, no de-duplication and no static data; n8n handles them as any community trigger. One answers 200 at once, before n8n stores its execution; the other is answered by n8n when its execution has ended, so the sender never gets ahead of what n8n can run. Their losses and doubles are reported as measured: they do nothing against repeats.';

/**
 * (f) with every receiver, once: each measure side by side, with the Svc Trigger's ratio to each
 * floor. Undefined otherwise: the runs are then listed by tableBurstRuns.
 */
export function tableF(
	runs: BurstRun[],
	burst: BurstSettings,
	burstEnv: Record<string, string>,
): Table | undefined {
	const of = (receiver: BurstRun['receiver']): BurstRun | undefined =>
		runs.find((run) => run.receiver === receiver);
	const [svc, floor, floorWhenDone, peer] = [
		of('svc'),
		of('floor'),
		of('floor-when-done'),
		of('peer'),
	];
	if (!svc || !floor || !floorWhenDone || !peer || runs.length !== 4) return undefined;
	const lazy = burstEnv[LAZY_ISOLATES] === 'true';
	const columns = [svc, floor, floorWhenDone, peer];
	const cpuRows: Array<[string, string[]]> = [
		['n8n CPU (main + task runner)', columns.map((run) => fmt(n8nCpuSeconds(run), 'CPU-s'))],
		['n8n CPU per accepted delivery', columns.map((run) => milliseconds(cpuMsPerAccepted(run)))],
	];
	const rows = [...measureRows(columns), ...cpuRows];
	return {
		title: `(f) a burst of ${count(burst.deliveries)} deliveries into one n8n (single main, SQLite)${lazy ? `, with ${LAZY_ISOLATES}=true` : ", n8n's defaults"}`,
		columns: [
			'measure',
			...columns.map((run) => RECEIVER_LABEL[run.receiver]),
			'Svc ÷ floor answering at once',
			'Svc ÷ floor answered when done',
		],
		rows: rows.map(([measure, values]) => [
			measure,
			...values,
			versusFloorOf(measure, svc, floor),
			versusFloorOf(measure, svc, floorWhenDone),
		]),
		notes: [
			...burstNotes(runs, burst),
			FLOORS_NOTE,
			'Each receiver runs in a fresh n8n (same settings, empty database, the floor fixtures loaded in all), so memory and database growth are its own. The targets follow.',
		],
	};
}

/** Svc ÷ floor for the measures where the ratio says something. */
function versusFloorOf(measure: string, svc: BurstRun, floor: BurstRun): string {
	const ratios: Record<string, () => number> = {
		'accepted per second': () => ratio(svc.acceptedPerSecond, floor.acceptedPerSecond),
		'answer time p50': () => ratio(svc.answerP50Ms, floor.answerP50Ms),
		'answer time p99': () => ratio(svc.answerP99Ms, floor.answerP99Ms),
		'peak RSS, n8n processes': () => ratio(svc.peakRssKb, floor.peakRssKb),
		'n8n CPU (main + task runner)': () => ratio(n8nCpuSeconds(svc), n8nCpuSeconds(floor)),
		'n8n CPU per accepted delivery': () => ratio(cpuMsPerAccepted(svc), cpuMsPerAccepted(floor)),
	};
	const compute = ratios[measure];
	return compute ? fmt(compute(), '×') : '';
}

/** (f-queue)'s receivers, in column order: each with 1 and then 2 webhook processors. */
const QUEUE_COLUMNS: Array<BurstRun['receiver']> = ['svc', 'svc-list', 'svc-list-batch', 'peer'];
/** Issue 73's targets, from the event list: accepted/s at least this share of the peer's. */
const PEER_SHARE_TARGET: Partial<Record<BurstRun['receiver'], number>> = {
	'svc-list': 0.5,
	'svc-list-batch': 1,
};
/** …and every delivery answered within this at the median, no execution waiting on a claim first. */
const ANSWER_P50_TARGET_MS = 1_000;

export function tableFQueue(runs: BurstRun[], burst: BurstSettings): Table {
	const find = (receiver: BurstRun['receiver'], processors: number): BurstRun | undefined =>
		runs.find(
			(run) => run.receiver === receiver && run.setting.startsWith(`queue, ${processors} `),
		);
	const columns = QUEUE_COLUMNS.flatMap((receiver) =>
		[1, 2].map((processors) => find(receiver, processors)),
	).filter((run): run is BurstRun => run !== undefined);
	const peerOf = (run: BurstRun): BurstRun | undefined =>
		find('peer', Number(/queue, (\d+) /.exec(run.setting)?.[1]));
	const isSvc = (run: BurstRun) => run.receiver !== 'peer';
	const fromList = columns.filter((run) => PEER_SHARE_TARGET[run.receiver] !== undefined);
	const peerShare = (run: BurstRun): number =>
		ratio(run.acceptedPerSecond, peerOf(run)?.acceptedPerSecond ?? Number.NaN);
	const targets: Record<string, [string, boolean]> = {
		'events lost (reached the end in no execution)': [
			'Svc: 0',
			columns.filter(isSvc).every((run) => run.lost === 0),
		],
		'  of which repeated within the last 2,000 events': [
			'Svc: 0',
			columns.filter(isSvc).every((run) => run.doubledWithinWindow === 0),
		],
		'answer time p50': [
			`event list: ≤ ${milliseconds(ANSWER_P50_TARGET_MS)}`,
			fromList.every((run) => run.answerP50Ms <= ANSWER_P50_TARGET_MS),
		],
	};
	const rows = measureRows(columns).map(([measure, values]) => {
		const [target, met] = targets[measure] ?? ['', undefined];
		return [measure, ...values, target, met === undefined ? '' : yes(met)];
	});
	rows.splice(3, 0, [
		"accepted per second ÷ the peer's, same processors",
		...columns.map((run) => (isSvc(run) ? fmt(peerShare(run), '×') : '')),
		'event list: one per event ≥ 0.5×, in batches ≥ 1×',
		yes(fromList.every((run) => peerShare(run) >= (PEER_SHARE_TARGET[run.receiver] ?? 0))),
	]);
	const afterDoubles = rows.findIndex(([measure]) =>
		measure.startsWith('  repeats sent more than'),
	);
	rows.splice(afterDoubles + 1, 0, [
		'  deliveries of an event that reached another processor than its first',
		...columns.map((run) => count(run.repeatsOnAnotherProcessor ?? Number.NaN)),
		'reported',
		'',
	]);
	rows.splice(2, 0, [
		'accepted per second, 2 processors ÷ 1',
		...columns.map((run) => {
			const one = find(run.receiver, 1);
			return run !== one && one
				? fmt(ratio(run.acceptedPerSecond, one.acceptedPerSecond), '×')
				: '';
		}),
		'',
		'',
	]);
	rows.push([
		'n8n CPU per accepted delivery (main, workers, processors)',
		...columns.map((run) => milliseconds(cpuMsPerAccepted(run))),
		'',
		'',
	]);
	const label = (run: BurstRun): string =>
		`${RECEIVER_LABEL[run.receiver]}, ${run.setting.replace('queue, ', '')}`;
	return {
		title: `(f-queue) a burst of ${count(burst.deliveries)} deliveries in queue mode: main + 2 workers, webhook processors behind nginx (PostgreSQL, Redis)`,
		columns: ['measure', ...columns.map(label), 'target', 'met'],
		rows,
		notes: [
			...burstNotes(runs, burst),
			"nginx (Debian's package, one worker process) terminates TLS and spreads deliveries round robin over the processors, over kept-alive TLS connections; n8n's main registers the trigger's webhook URL at nginx. All processes (2 workers with their task runners, main, processors, PostgreSQL, Redis, nginx, the sandbox) share the same cores.",
			'Svc Trigger from the event list (Run Events From: The Event List, the queue-mode setting): the processors verify and answer each delivery without an execution, and the main runs the listed events on the workers, so its answers no longer wait on the workers: "events through per second" and "until every execution ended" say how fast the events then ran.',
			'Doubles are reported, not hidden: a repeat that reaches another processor than the first delivery of its event is checked against static data that the other processor may not have saved yet, or whose save a concurrent one overwrote (the documented static-data limit; see docs/queue-mode.md for the exactly-once example with PostgreSQL).',
		],
	};
}

/** One row per burst run: (f-settings), and (f) when `--receivers` chose some. */
export function tableBurstRuns(
	title: string,
	runs: BurstRun[],
	burst: BurstSettings,
	note: string,
): Table {
	return {
		title,
		columns: [
			'run',
			'accepted/s',
			'events through/s',
			'p50',
			'p99',
			'lone event p50 / p99',
			'executions',
			'lost',
			'doubled (within 2,000)',
			'retried',
			'n8n CPU',
			'CPU per accepted',
			'peak RSS',
			'n8n ended',
		],
		rows: runs.map((run) => [
			`${run.setting}, ${RECEIVER_LABEL[run.receiver]}`,
			fmt(run.acceptedPerSecond),
			fmt(run.eventsThroughPerSecond),
			milliseconds(run.answerP50Ms),
			milliseconds(run.answerP99Ms),
			`${milliseconds(run.loneP50Ms)} / ${milliseconds(run.loneP99Ms)}`,
			count(run.executionsStarted),
			count(run.lost),
			count(run.doubledWithinWindow),
			count(run.retriedDeliveries),
			fmt(n8nCpuSeconds(run), 'CPU-s'),
			milliseconds(cpuMsPerAccepted(run)),
			mb(run.peakRssKb),
			run.n8nEnded ?? 'no',
		]),
		notes: [...burstNotes(runs, burst), note],
	};
}
