/**
 * Svc Pull Trigger after downtime: n8n killed in the middle of a backlog (a plain http webhook
 * URL, as on a laptop; on n8n 2.41 also with its durable poll cursors), and the catch-up beside
 * Svc Trigger over https, events from while the workflow was unpublished and events delivered
 * during the catch-up. Each event runs once.
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
import { killMidBacklog } from '../../harness/kill-mid-backlog';
import { CRASH_BACKLOG, PULLED_RUN_WORK_SECONDS } from '../../harness/crash-sizes';
import { runtimeVersions } from '../../harness/runtime-versions';
import { until } from '../../harness/wait';

jest.setTimeout(15 * 60_000);

const figures: Record<string, IDataObject> = {};

afterAll(async () => {
	// Each major may run in its own jest process: the other's figures are kept.
	await mergeFigures('pull-recovery-figures.json', figures);
});

/**
 * n8n 2.41's durable poll cursors, with the switches they need (they stay off without all of
 * them): n8n's own scheduler runs each poll in a context of its own and stores the trigger's
 * position in a table of its own, with each execution the poll starts.
 */
const DURABLE_POLL_CURSORS = {
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
};

/** Each major on n8n's default poll scheduler; 2.41 also with durable poll cursors. */
const POLL_SETUPS = runtimeVersions('SVC_E2E_N8N').flatMap((version) => [
	{ version, scheduler: "n8n's default poll scheduler", n8nEnv: {}, figure: version },
	...(version === 'v2'
		? [
				{
					version,
					scheduler: 'durable poll cursors',
					n8nEnv: DURABLE_POLL_CURSORS,
					figure: `${version} durable cursors`,
				},
			]
		: []),
]);

describe.each(POLL_SETUPS)(
	'n8n $version, $scheduler: Svc Pull Trigger with a plain http webhook URL',
	({ version, n8nEnv, figure }) => {
		let env: Environment;
		let workflowId: string;
		beforeAll(async () => {
			env = await startEnvironment({ version, protocol: 'http', n8nEnv });
			figures[figure] = {};
			const imported = await importReceiverWorkflow(
				env.n8n,
				'Svc: new leads, no public URL',
				SVC_PULL_TRIGGER_RECEIVER,
				{
					sandboxUrl: env.sandbox.url,
					credential: env.credential,
					workSeconds: PULLED_RUN_WORK_SECONDS,
				},
			);
			workflowId = imported.id;
		}, 15 * 60_000);
		afterAll(async () => {
			await env?.stop();
		});

		if (n8nEnv === DURABLE_POLL_CURSORS)
			it("published: events created before n8n's scheduler first polls run once each (n8n does not store the position the publish's poll took)", async () => {
				const { id } = await importReceiverWorkflow(
					env.n8n,
					'Svc: new leads, first poll',
					SVC_PULL_TRIGGER_RECEIVER,
					{ sandboxUrl: env.sandbox.url, credential: env.credential },
				);
				await activate(env.n8n, id);
				const ids = emitLeadsCreated(env.sandbox.state, 5);
				expect(await untilRanPastTrigger(env.sandbox.state, ids)).toEqual([1, 1, 1, 1, 1]);
				await deactivate(env.n8n, id);
			});

		it('SIGKILL in the middle of a backlog: after a restart every event runs, and none twice', async () => {
			const { ids, runs, ranBeforeKill, retried } = await killMidBacklog(
				env,
				workflowId,
				CRASH_BACKLOG.onePerEvent,
			);
			expect(ranBeforeKill.size).toBeLessThan(ids.length);
			figures[figure].crash = {
				backlog: ids.length,
				ranBeforeKill: ranBeforeKill.size,
				crashedRetried: retried,
				lost: runs.filter((count) => count === 0).length,
				twice: runs.filter((count) => count > 1).length,
			};
			expect(runs.filter((count) => count !== 1)).toEqual([]);
			// The kill cut a claimed run short: its run crashed holding the event, and the Retry ran it.
			expect(retried).toBeGreaterThan(0);
		});

		it('SIGKILL in the middle of a backlog in batch mode (batches of 50): after a restart every event runs, and none twice', async () => {
			await deactivate(env.n8n, workflowId);
			const { id: batchWorkflowId } = await importReceiverWorkflow(
				env.n8n,
				'Svc: new leads in batches, no public URL',
				pullReceiverInBatches(50),
				{
					sandboxUrl: env.sandbox.url,
					credential: env.credential,
					workSeconds: PULLED_RUN_WORK_SECONDS,
				},
			);
			// About 800 events claim at once (16 batches of 50), each run at least its 2 s of work: once
			// the first of them ran, the kill waits for a later batch claimed and not yet run.
			const { ids, runs, ranBeforeKill, retried } = await killMidBacklog(
				env,
				batchWorkflowId,
				CRASH_BACKLOG.inBatches,
			);
			expect(ranBeforeKill.size).toBeLessThan(ids.length);
			const twice = ids.filter((_, index) => runs[index] > 1);
			figures[figure].crashInBatches = {
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
