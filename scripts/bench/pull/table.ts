/** (p)'s table: the pull trigger's drain rate beside the Svc Trigger's accepted rate in (f). */
import type { BurstRun } from '../burst/measure';
import type { Table } from '../report';
import { msAsSeconds, yes } from '../report';
import { count, fmt, median } from '../stats';
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
