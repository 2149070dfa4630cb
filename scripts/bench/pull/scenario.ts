/**
 * (p) Svc Pull Trigger in a real n8n with a plain http webhook URL: a backlog drained after a
 * publish, what an idle poll costs, and how long an event waits for its poll.
 */
import type { Sandbox } from '../../../sandbox';
import {
	ranPastTrigger,
	receiverWorkflow,
	stoppedAtTrigger,
	SVC_PULL_TRIGGER_RECEIVER,
} from '../../../harness/crash-receivers';
import { sandboxCredential } from '../../../harness/environment';
import { withCredential } from '../../../harness/example-workflows';
import type { CredentialRef } from '../../../harness/n8n/api';
import { activate, deactivate, importCredential, importWorkflow } from '../../../harness/n8n/api';
import { listExecutions } from '../../../harness/n8n/executions';
import type { N8nInstance } from '../../../harness/n8n/instance';
import { startN8n } from '../../../harness/n8n/process';
import type { N8nRuntime } from '../../../harness/n8n-runtime/install';
import { PACKAGE_NODE_TYPES } from '../../../harness/project';
import { until } from '../../../harness/wait';

export interface PullRun {
	backlog: number;
	/** From publishing until the last event of the backlog ran past the trigger. */
	drainMs: number;
	/** The polls' reading time: each from its first request to the last event it ran, not the wait for the next poll. */
	readingMs: number;
	polls: number;
	/** GET /v1/events requests of each poll that found nothing. */
	idleRequests: number[];
	/** Event created to run past the trigger, one event at a time. */
	latenciesMs: number[];
	/** Executions the workflow ran in all (the backlog and the latency samples), and of them those that stopped at the trigger: events that had run. */
	executions: number;
	repeats: number;
	lost: number;
	twice: number;
}

/** n8n polls at most once a minute. */
export const POLL_INTERVAL_MS = 60_000;
const RUN_TIMEOUT_MS = 30 * 60_000;

interface Poll {
	at: number;
	last: number;
	requests: number;
}

/**
 * The sandbox's event-list requests after `mark`, grouped by poll: those up to `publishedAt` are
 * the publish's own poll, and n8n's every-minute polls start at a minute's turn and read for less
 * than a minute, so the rest group by the minute they fall in.
 */
function pollsSince(sandbox: Sandbox, mark: number, publishedAt = 0): Poll[] {
	const polls = new Map<number, Poll>();
	for (const request of sandbox.state.requests.all().slice(mark)) {
		if (request.route !== 'GET /v1/events') continue;
		const at = Date.parse(request.time);
		const key = at <= publishedAt ? -1 : Math.floor(at / POLL_INTERVAL_MS);
		const current = polls.get(key);
		if (current) {
			current.last = at;
			current.requests++;
		} else polls.set(key, { at, last: at, requests: 1 });
	}
	return [...polls.values()];
}

/**
 * The polls since `mark` and their reading time: from each poll's first request to the last
 * request at `donePath` (a path, or a pattern) before the next poll, leaving out the waits between polls.
 */
export function pollReading(
	sandbox: Sandbox,
	mark: number,
	publishedAt: number,
	donePath: string | RegExp,
): { polls: number; readingMs: number } {
	const polls = pollsSince(sandbox, mark, publishedAt);
	const doneTimes = sandbox.state.requests
		.all()
		.slice(mark)
		.filter((request) =>
			typeof donePath === 'string' ? request.path === donePath : donePath.test(request.path),
		)
		.map((request) => Date.parse(request.time));
	const readingMs = polls.reduce((sum, poll, index) => {
		const next = polls[index + 1]?.at ?? Number.POSITIVE_INFINITY;
		let last = poll.at;
		for (const at of doneTimes) if (at >= poll.at && at < next && at > last) last = at;
		return sum + (last - poll.at);
	}, 0);
	return { polls: polls.length, readingMs };
}

/**
 * A fresh n8n (single main, SQLite, plain http) with the package from `context.tarball` and the
 * sandbox's credential, for `measure`; stopped afterwards.
 */
export async function withPullBenchN8n<T>(
	context: { runtime: N8nRuntime; tarball: string; sandbox: Sandbox },
	measure: (n8n: N8nInstance, credential: CredentialRef) => Promise<T>,
): Promise<T> {
	const n8n = await startN8n({
		runtime: context.runtime,
		packageTarball: context.tarball,
		protocol: 'http',
		logLevel: 'warn',
		expectNodeTypes: PACKAGE_NODE_TYPES,
	});
	try {
		const credential = await importCredential(
			n8n,
			sandboxCredential(context.runtime.version, context.sandbox.url),
		);
		return await measure(n8n, credential);
	} finally {
		await n8n.stop();
	}
}

export async function scenarioP(context: {
	runtime: N8nRuntime;
	tarball: string;
	sandbox: Sandbox;
	backlog: number;
	latencySamples: number;
}): Promise<PullRun> {
	const { sandbox } = context;
	return await withPullBenchN8n(context, async (n8n, credential) => {
		const { id } = await importWorkflow(
			n8n,
			withCredential(
				receiverWorkflow('Svc bench: pull', SVC_PULL_TRIGGER_RECEIVER, sandbox.url),
				credential,
			),
		);
		await activate(n8n, id);
		await deactivate(n8n, id);
		const emit = () => sandbox.state.deliveries.emit('lead.created', {}).event.id;
		const ranOf = (ids: string[]) => {
			const ran = ranPastTrigger(sandbox.state);
			return ids.filter((event) => ran.has(event)).length;
		};

		const backlog = Array.from({ length: context.backlog }, emit);
		const mark = sandbox.state.requests.all().length;
		const published = Date.now();
		await activate(n8n, id);
		const publishedAt = Date.now();
		await until('the backlog to run', () => ranOf(backlog) === backlog.length, {
			timeoutMs: RUN_TIMEOUT_MS,
			everyMs: 250,
		});
		const drainMs = Date.now() - published;
		const { polls, readingMs } = pollReading(sandbox, mark, publishedAt, '/__ran');

		const latenciesMs: number[] = [];
		for (let sample = 0; sample < context.latencySamples; sample++) {
			const created = Date.now();
			const event = emit();
			await until('the event to run', () => ranOf([event]) === 1, {
				timeoutMs: 3 * POLL_INTERVAL_MS,
				everyMs: 50,
			});
			latenciesMs.push(Date.now() - created);
		}

		// Nothing new from here: the next polls find nothing.
		const idleMark = sandbox.state.requests.all().length;
		let idle: Poll[] = [];
		await until(
			'two idle polls',
			() => {
				idle = pollsSince(sandbox, idleMark);
				// The second poll's minute is over.
				return (
					idle.length >= 2 &&
					Math.floor(Date.now() / POLL_INTERVAL_MS) > Math.floor(idle[1].at / POLL_INTERVAL_MS)
				);
			},
			{ timeoutMs: 4 * POLL_INTERVAL_MS, everyMs: 500 },
		);
		const ran = ranPastTrigger(sandbox.state);
		const executions = await listExecutions(n8n, id, { includeData: true });
		return {
			executions: executions.length,
			repeats: stoppedAtTrigger(executions).length,
			backlog: backlog.length,
			drainMs,
			readingMs,
			polls,
			idleRequests: idle.map((poll) => poll.requests),
			latenciesMs,
			lost: backlog.filter((event) => !ran.has(event)).length,
			twice: backlog.filter((event) => (ran.get(event) ?? 0) > 1).length,
		};
	});
}
