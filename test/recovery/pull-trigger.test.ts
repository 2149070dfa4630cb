/**
 * Svc Pull Trigger after downtime: n8n killed in the middle of a backlog (a plain http webhook
 * URL, as on a laptop), and the catch-up beside Svc Trigger over https, events from while the
 * workflow was unpublished and events delivered during the catch-up. Each event runs once.
 * Figures go to .tmp/pull-recovery-figures.json.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	emitLeadsCreated,
	importReceiverWorkflow,
	pullReceiverInBatches,
	ranPastTrigger,
	SVC_PULL_TRIGGER_RECEIVER,
	SVC_TRIGGER_RECEIVER,
	TWO_POLLS_MS,
	untilRanPastTrigger,
} from '../../harness/crash-receivers';
import type { Environment } from '../../harness/environment';
import { startEnvironment } from '../../harness/environment';
import { loadExample } from '../../harness/example-workflows';
import { upsertLead } from '../../sandbox/operations';
import { mergeFigures } from '../../harness/figures';
import { activate, deactivate, importWorkflow } from '../../harness/n8n/api';
import { isUnfinished, listExecutions } from '../../harness/n8n/executions';
import { retryCutShortRuns, withEventIds } from '../../harness/kill-mid-burst';
import { CRASH_BACKLOG } from '../../harness/crash-sizes';
import { runtimeVersions } from '../../harness/runtime-versions';
import { until } from '../../harness/wait';

jest.setTimeout(15 * 60_000);

const figures: Record<string, IDataObject> = {};

afterAll(async () => {
	// Each major may run in its own jest process: the other's figures are kept.
	await mergeFigures('pull-recovery-figures.json', figures);
});

describe.each(runtimeVersions('SVC_E2E_N8N'))(
	'n8n %s: Svc Pull Trigger with a plain http webhook URL',
	(version) => {
		let env: Environment;
		let workflowId: string;
		beforeAll(async () => {
			env = await startEnvironment({ version, protocol: 'http' });
			figures[version] = {};
			const imported = await importReceiverWorkflow(
				env.n8n,
				'Svc: new leads, no public URL',
				SVC_PULL_TRIGGER_RECEIVER,
				{ sandboxUrl: env.sandbox.url, credential: env.credential },
			);
			workflowId = imported.id;
		}, 15 * 60_000);
		afterAll(async () => {
			await env?.stop();
		});

		const emit = (count: number): string[] => emitLeadsCreated(env.sandbox.state, count);
		const waitUntilRan = async (ids: string[], timeoutMs?: number): Promise<number[]> =>
			await untilRanPastTrigger(env.sandbox.state, ids, timeoutMs);

		/**
		 * Whether a run of `id` under way holds events of `ids` none of which ran past the trigger
		 * yet: a batch claimed and not finished, which a kill now cuts short.
		 */
		const aClaimedBatchIsUnderWay = async (id: string, ids: ReadonlySet<string>) => {
			const running = await listExecutions(env.n8n, id, { status: 'running', includeData: true });
			const ran = ranPastTrigger(env.sandbox.state);
			return withEventIds(running).some(
				({ eventIds }) =>
					eventIds.size > 0 && [...eventIds].every((event) => ids.has(event) && !ran.has(event)),
			);
		};

		/**
		 * A backlog of `events` created after `id`'s trigger took a position; published; n8n killed
		 * (SIGKILL) once `killAfterRan` of it ran (and, with `cutABatchShort`, a batch holding none
		 * that ran is under way), and started again; what the kill cut short and did not run, retried
		 * as a person would. Returns how often each event ran and which ran before the kill.
		 */
		const killMidBacklog = async (
			id: string,
			{ events, killAfterRan: killAfter }: { events: number; killAfterRan: number },
			{ cutABatchShort = false } = {},
		) => {
			// Published once, so that the trigger holds a position: the backlog builds up after it.
			await activate(env.n8n, id);
			await deactivate(env.n8n, id);
			const ids = emit(events);
			await activate(env.n8n, id);
			const ranOf = () => {
				const ran = ranPastTrigger(env.sandbox.state);
				return ids.filter((event) => ran.has(event)).length;
			};
			await until(`${killAfter} of the backlog to run`, () => ranOf() >= killAfter, {
				timeoutMs: TWO_POLLS_MS,
				everyMs: 100,
			});
			const backlog = new Set(ids);
			if (cutABatchShort)
				await until(
					'a batch to be under way holding none of the events that ran',
					async () => await aClaimedBatchIsUnderWay(id, backlog),
					{ timeoutMs: TWO_POLLS_MS, everyMs: 100 },
				);
			await env.n8n.kill();
			const ran = ranPastTrigger(env.sandbox.state);
			const ranBeforeKill = new Set(ids.filter((event) => ran.has(event)));
			expect(ranBeforeKill.size).toBeLessThan(ids.length);
			env.n8n = await env.n8n.restart();
			// A run the kill cut short holds its events: n8n marks it crashed, and a person retries it
			// when its events did not run past the trigger.
			const retried = await retryCutShortRuns(env.n8n, id, new Set(ids), env.sandbox.state);
			const runs = await waitUntilRan(ids, 2 * TWO_POLLS_MS);
			return { ids, runs, ranBeforeKill, retried };
		};

		it('SIGKILL in the middle of a backlog: after a restart every event runs, and none twice', async () => {
			const { ids, runs, ranBeforeKill, retried } = await killMidBacklog(
				workflowId,
				CRASH_BACKLOG.onePerEvent,
			);
			figures[version].crash = {
				backlog: ids.length,
				ranBeforeKill: ranBeforeKill.size,
				crashedRetried: retried,
				lost: runs.filter((count) => count === 0).length,
				twice: runs.filter((count) => count > 1).length,
			};
			expect(runs.filter((count) => count !== 1)).toEqual([]);
		});

		it('SIGKILL in the middle of a backlog in batch mode (batches of 50): after a restart every event runs, and none twice', async () => {
			await deactivate(env.n8n, workflowId);
			const { id: batchWorkflowId } = await importReceiverWorkflow(
				env.n8n,
				'Svc: new leads in batches, no public URL',
				pullReceiverInBatches(50),
				{ sandboxUrl: env.sandbox.url, credential: env.credential },
			);
			// About 800 events claim at once (16 batches of 50), each claim at least its 2 s settle: once
			// the first of them ran, the kill waits for a later batch claimed and not yet run.
			const { ids, runs, ranBeforeKill, retried } = await killMidBacklog(
				batchWorkflowId,
				CRASH_BACKLOG.inBatches,
				{ cutABatchShort: true },
			);
			const twice = ids.filter((_, index) => runs[index] > 1);
			figures[version].crashInBatches = {
				backlog: ids.length,
				batchSize: 50,
				ranBeforeKill: ranBeforeKill.size,
				crashedRetried: retried,
				lost: runs.filter((count) => count === 0).length,
				twice: twice.length,
			};
			expect(runs.filter((count) => count === 0)).toEqual([]);
			// The kill cut a claimed batch short: its run crashed holding them, and the Retry ran them.
			expect(retried).toBeGreaterThan(0);
			// Exactly once holds at the trigger. The one repeat a Retry allows is n8n's own: a run the
			// kill cut in the middle of the node after the trigger is retried whole, so the events that
			// node had handled before the kill run again (at most the 16 batches in flight).
			expect(twice.filter((id) => !ranBeforeKill.has(id))).toEqual([]);
			expect(twice.length).toBeLessThanOrEqual(16 * 50);
			await deactivate(env.n8n, batchWorkflowId);
		});
	},
);

describe.each(runtimeVersions('SVC_E2E_N8N'))(
	'n8n %s: Svc Trigger and Svc Pull Trigger in one workflow, over https',
	(version) => {
		let env: Environment;
		beforeAll(async () => {
			// Retrying for longer, as the service does: on a loaded machine every try of a delivery
			// can time out while n8n works through the catch-up (seen with four suites side by side
			// for 18 s of tries), and a later one then gets through.
			env = await startEnvironment({
				version,
				delivery: { retryDelaysMs: [200, 500, 2_000, 5_000, 10_000, 30_000, 60_000] },
			});
		}, 15 * 60_000);
		afterAll(async () => {
			await env?.stop();
		});

		it.each([
			['one per event', SVC_PULL_TRIGGER_RECEIVER],
			['in batches of 50', pullReceiverInBatches(50)],
		])(
			'catch-up, the pull %s: 200 events from while it was unpublished and 50 delivered during the catch-up run once each',
			async (mode, pullReceiver) => {
				const { id } = await importReceiverWorkflow(
					env.n8n,
					`Svc: webhook with pull catch-up (${mode})`,
					[SVC_TRIGGER_RECEIVER, pullReceiver],
					{ sandboxUrl: env.sandbox.url, credential: env.credential },
				);
				await activate(env.n8n, id);
				await deactivate(env.n8n, id);
				const emit = (count: number) =>
					Array.from(
						{ length: count },
						() => env.sandbox.state.deliveries.emit('lead.created', {}).event.id,
					);
				const missed = emit(200);
				await activate(env.n8n, id);
				const delivered = emit(50);
				const ids = [...missed, ...delivered];
				await until(
					'every event to run past a trigger',
					() => {
						const ran = ranPastTrigger(env.sandbox.state);
						return ids.every((event) => ran.has(event));
					},
					{ timeoutMs: TWO_POLLS_MS, everyMs: 250 },
				);
				// Deliveries still retrying are over once the sandbox is idle: then the count is final.
				await env.sandbox.state.deliveries.idle();
				const ran = ranPastTrigger(env.sandbox.state);
				expect(ids.filter((event) => ran.get(event) !== 1)).toEqual([]);
				// The 50 were delivered while the workflow was published, so some arrived both ways (under
				// load a delivery may time out while n8n is busy with the catch-up: the poll then has it).
				const attempts = env.sandbox.state.deliveries.attempts();
				const answered = new Set(
					attempts.filter((attempt) => attempt.ok).map((attempt) => attempt.eventId),
				);
				const sent = new Set(attempts.map((attempt) => attempt.eventId));
				expect(delivered.filter((event) => !sent.has(event))).toEqual([]);
				expect(delivered.some((event) => answered.has(event))).toBe(true);
				expect(missed.filter((event) => sent.has(event))).toEqual([]);
				await deactivate(env.n8n, id);
			},
		);

		it('the example "Svc: new leads, webhook with pull catch-up" as its note says: a lead created while it was unpublished and one created after are each read once by Get Lead', async () => {
			const { id } = await importWorkflow(
				env.n8n,
				loadExample('new-leads-webhook-with-catch-up.json', env.credential),
			);
			await activate(env.n8n, id);
			await deactivate(env.n8n, id);
			const { lead: missed } = upsertLead(env.sandbox.state, {
				email: `catch-up-missed-${version}@example.com`,
			});
			await activate(env.n8n, id);
			const { lead: live } = upsertLead(env.sandbox.state, {
				email: `catch-up-live-${version}@example.com`,
			});
			const reads = (leadId: string) =>
				env.sandbox.state.requests.all().filter((request) => request.path === `/v1/leads/${leadId}`)
					.length;
			// The missed lead comes by pull; the live one by webhook and by the next poll, whose copy stops.
			await until(
				'both leads read, and the live one pulled too',
				async () => {
					const executions = await listExecutions(env.n8n, id);
					return (
						reads(missed.id) > 0 &&
						reads(live.id) > 0 &&
						executions.length >= 3 &&
						!executions.some(isUnfinished)
					);
				},
				{ timeoutMs: TWO_POLLS_MS, everyMs: 500 },
			);
			await env.sandbox.state.deliveries.idle();
			expect([reads(missed.id), reads(live.id)]).toEqual([1, 1]);
			await deactivate(env.n8n, id);
		});
	},
);
