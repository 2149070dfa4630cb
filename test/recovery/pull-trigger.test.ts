/**
 * Svc Pull Trigger after downtime: n8n killed in the middle of a backlog (a plain http webhook
 * URL, as on a laptop; on n8n 2.41 also with its durable poll cursors). Each event runs once.
 * The catch-up beside Svc Trigger is in pull-catch-up.test.ts, so that jest runs the two side by
 * side. Figures go to .tmp/pull-recovery-figures.json.
 *
 * @startsFirst: on n8n 2.41 the suite's longest file by far (about 340 s, half of it waiting on
 * n8n's minute polls), yet not its largest: with three jest workers it sets the suite's end only
 * when it starts first (harness/jest/test-order.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import {
	emitLeadsCreated,
	importReceiverWorkflow,
	pullReceiverInBatches,
	SVC_PULL_TRIGGER_RECEIVER,
	untilRanPastTrigger,
} from '../../harness/crash-receivers';
import type { Environment } from '../../harness/environment';
import { startEnvironment } from '../../harness/environment';
import { mergeFigures } from '../../harness/figures';
import { activate, deactivate } from '../../harness/n8n/api';
import { killMidBacklog } from '../../harness/kill-mid-backlog';
import { CRASH_BACKLOG, WORK_AFTER_TRIGGER_SECONDS } from '../../harness/crash-sizes';
import { runtimeVersions } from '../../harness/runtime-versions';

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
					workSeconds: WORK_AFTER_TRIGGER_SECONDS,
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
			const { ids, runs, ranBeforeKill, crashed, retried, repeats, stoppedLeftRunning } =
				await killMidBacklog(env, workflowId, CRASH_BACKLOG.onePerEvent);
			expect(ranBeforeKill.size).toBeLessThan(ids.length);
			figures[figure].crash = {
				backlog: ids.length,
				ranBeforeKill: ranBeforeKill.size,
				crashed,
				crashedRetried: retried,
				stoppedLeftRunning,
				repeatsAfterRestart: repeats,
				lost: runs.filter((count) => count === 0).length,
				twice: runs.filter((count) => count > 1).length,
			};
			expect(runs.filter((count) => count !== 1)).toEqual([]);
			// The kill cut a run short (n8n marked it crashed, or left it running to be stopped), and its event still ran once: by the
			// Retry when the run had claimed it, by the next poll when the kill came before its claim.
			expect(crashed + stoppedLeftRunning).toBeGreaterThan(0);
			// n8n stored the position with each execution started, at most 20 unfinished: the events
			// read again that had run are those 20, each an execution stopped at the trigger, and what
			// a save n8n did not wait for left behind (docs/reliability.md).
			expect(repeats).toBeLessThanOrEqual(40);
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
					workSeconds: WORK_AFTER_TRIGGER_SECONDS,
				},
			);
			// Up to about 800 events in runs at once (16 batches of 50, each claiming once the one before
			// has), each run at least its 2 s of work: once the first of them ran, the kill waits for a
			// later batch claimed and not yet run.
			const { ids, runs, ranBeforeKill, crashed, retried, repeats, stoppedLeftRunning } =
				await killMidBacklog(env, batchWorkflowId, CRASH_BACKLOG.inBatches);
			expect(ranBeforeKill.size).toBeLessThan(ids.length);
			const twice = ids.filter((_, index) => runs[index] > 1);
			figures[figure].crashInBatches = {
				backlog: ids.length,
				batchSize: 50,
				ranBeforeKill: ranBeforeKill.size,
				crashed,
				crashedRetried: retried,
				stoppedLeftRunning,
				repeatsAfterRestart: repeats,
				lost: runs.filter((count) => count === 0).length,
				twice: twice.length,
			};
			expect(runs.filter((count) => count === 0)).toEqual([]);
			// The kill cut a batch short (n8n marked its run crashed); a Retry ran it when it had claimed.
			expect(crashed + stoppedLeftRunning).toBeGreaterThan(0);
			// Exactly once holds at the trigger. The one repeat a Retry allows is n8n's own: a run the
			// kill cut in the middle of the node after the trigger is retried whole, so the events that
			// node had handled before the kill run again (at most the 16 batches in flight).
			expect(twice.filter((id) => !ranBeforeKill.has(id))).toEqual([]);
			expect(twice.length).toBeLessThanOrEqual(16 * 50);
			// Each batch started once the one before had claimed, so n8n stored the position past all
			// but the last: at most one batch of events that had run is read again.
			expect(repeats).toBeLessThanOrEqual(1);
			await deactivate(env.n8n, batchWorkflowId);
		});
	},
);
