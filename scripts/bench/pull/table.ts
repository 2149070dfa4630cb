/** (p)'s table: the pull trigger's drain rate beside the Svc Trigger's accepted rate in (f). */
import type { BurstRun } from '../burst/measure';
import type { Table } from '../report';
import { msAsSeconds, yes } from '../report';
import { count, fmt, median } from '../stats';
import type { PullModeRun } from './batches';
import { BENCH_BATCH_SIZE } from './batches';
import type { PullRun } from './scenario';
import { POLL_INTERVAL_MS } from './scenario';

export function tableP(run: PullRun, burst: BurstRun[] | undefined): Table {
	const drained = run.backlog / (run.drainMs / 1000);
	const whileReading = run.backlog / (run.readingMs / 1000);
	const svc = burst?.filter((one) => one.receiver === 'svc').map((one) => one.acceptedPerSecond);
	const webhookRate = svc && svc.length > 0 ? median(svc) : undefined;
	const worstLatency = Math.max(...run.latenciesMs);
	const rows: string[][] = [
		[
			`backlog of ${count(run.backlog)} after a publish: events/s`,
			`${fmt(drained, '/s')} overall; ${fmt(whileReading, '/s')} while polls read`,
			webhookRate === undefined ? 'run with --only=f,p' : `${fmt(webhookRate, '/s')} accepted (f)`,
			webhookRate === undefined ? 'n/a' : yes(whileReading >= webhookRate),
		],
		[
			'requests per idle poll',
			run.idleRequests.join(', '),
			'1',
			yes(run.idleRequests.every((requests) => requests === 1)),
		],
		[
			'event created → ran past the trigger',
			run.latenciesMs.map((ms) => msAsSeconds(ms)).join(', '),
			`≤ ${msAsSeconds(POLL_INTERVAL_MS + 1000)} (poll interval + 1 s)`,
			yes(worstLatency <= POLL_INTERVAL_MS + 1000),
		],
		[
			'executions / of them stopped at the trigger (repeats)',
			`${count(run.executions)} / ${count(run.repeats)}`,
			`${count(run.backlog + run.latenciesMs.length)} events / 0`,
			yes(run.executions === run.backlog + run.latenciesMs.length && run.repeats === 0),
		],
		['lost / twice', `${run.lost} / ${run.twice}`, '0 / 0', yes(run.lost === 0 && run.twice === 0)],
	];
	return {
		title: `(p) Svc Pull Trigger: a backlog of ${count(run.backlog)} events, idle polls and latency (n8n 2.41, single main, SQLite, plain http)`,
		columns: ['measure', 'Svc Pull Trigger', 'beside', 'met'],
		rows,
		notes: [
			`The backlog was created while the workflow was unpublished, then it was published: the publish's own poll reads for 5 s, then each poll (every minute) reads for up to 45 s. ${run.polls} polls in ${msAsSeconds(run.drainMs)}; "while polls read" counts each poll from its first request to the last event it ran, leaving out the wait for the next poll.`,
			'Beside it, the Svc Trigger (webhook) in (f): deliveries answered 2xx per second under a burst, on the same machine in the same run.',
		],
	};
}

/**
 * (p-batch)'s table: the same backlog in one-per-event and batch mode, alone and with a Get Lead
 * per item, beside the Svc Trigger's (f) on the same machine.
 */
export function tableBatches(runs: PullModeRun[], burst: BurstRun[] | undefined): Table {
	const svc = burst?.filter((one) => one.receiver === 'svc') ?? [];
	const webhook = svc.length > 0 ? svc[0] : undefined;
	const perSecond = (run: PullModeRun) => run.backlog / (run.readingMs / 1000);
	const cpuPerEvent = (run: PullModeRun) => (run.n8nCpuSeconds * 1000) / run.backlog;
	const webhookCpuPerEvent = webhook
		? (webhook.cpuSeconds
				.filter(([label]) => !label.startsWith('benchmark'))
				.reduce((sum, [, seconds]) => sum + seconds, 0) *
				1000) /
			webhook.executionsStarted
		: undefined;
	const rows: string[][] = [];
	for (const getLead of [false, true]) {
		const one = runs.find((run) => run.getLead === getLead && run.mode === 'one per event');
		const batch = runs.find((run) => run.getLead === getLead && run.mode === 'batches');
		if (!one || !batch) continue;
		const workflow = getLead ? 'with Get Lead per item' : 'trigger alone';
		const executionsAllowed = Math.ceil(batch.backlog / BENCH_BATCH_SIZE) + batch.polls;
		rows.push(
			[
				`${workflow}: executions`,
				count(one.executions),
				count(batch.executions),
				webhook ? count(webhook.executionsStarted) : 'run with --only=f,p-batch',
				`batches ≤ ⌈${count(batch.backlog)} / ${BENCH_BATCH_SIZE}⌉ + ${batch.polls} polls = ${executionsAllowed}`,
				yes(batch.executions <= executionsAllowed),
			],
			[
				`${workflow}: events/s while polls read`,
				fmt(perSecond(one), '/s'),
				fmt(perSecond(batch), '/s'),
				webhook ? fmt(webhook.eventsThroughPerSecond, '/s') : 'n/a',
				`batches ≥ 20× one per event (${fmt(20 * perSecond(one), '/s')})`,
				yes(perSecond(batch) >= 20 * perSecond(one)),
			],
			[
				`${workflow}: n8n CPU per event`,
				fmt(cpuPerEvent(one), 'ms'),
				fmt(cpuPerEvent(batch), 'ms'),
				webhookCpuPerEvent === undefined ? 'n/a' : fmt(webhookCpuPerEvent, 'ms'),
				`batches ≤ 1/20 of one per event (${fmt(cpuPerEvent(one) / 20, 'ms')})`,
				yes(cpuPerEvent(batch) <= cpuPerEvent(one) / 20),
			],
			[
				`${workflow}: executions spent on repeats`,
				count(one.repeats),
				count(batch.repeats),
				'n/a',
				'0',
				yes(one.repeats === 0 && batch.repeats === 0),
			],
			[
				`${workflow}: lost / twice`,
				`${one.lost} / ${one.twice}`,
				`${batch.lost} / ${batch.twice}`,
				webhook ? `${webhook.lost} / ${webhook.doubled}` : 'n/a',
				'0 / 0',
				yes([one, batch].every((run) => run.lost === 0 && run.twice === 0)),
			],
		);
	}
	return {
		title: `(p-batch) Svc Pull Trigger, one execution per event or batches of ${BENCH_BATCH_SIZE}: a backlog of ${count(runs[0]?.backlog ?? 0)} events (n8n 2.41, single main, SQLite, plain http)`,
		columns: [
			'measure',
			'one per event',
			`batches of ${BENCH_BATCH_SIZE}`,
			'Svc Trigger (f)',
			'target',
			'met',
		],
		rows,
		notes: [
			'Each backlog was created while its workflow was unpublished, then the workflow was published. "While polls read" counts each poll from its first request to the last event it ran (with Get Lead: the last lead it read), leaving out the wait for the next poll, which is the same in both modes.',
			'n8n CPU: the n8n process and its task runner, from publishing until every execution ended. Svc Trigger (f): the burst of the same run, into the Svc Trigger (its first round), deliveries ending each in one execution.',
		],
	};
}
