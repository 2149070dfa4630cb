/**
 * Svc Pull Trigger in batches (Events per Execution: Many, Batch Size 50) in a real n8n: a backlog
 * and the live events after it run once each, in executions of at most 50 events in order; a 410
 * is a failed execution that says what may be missing; the example workflow for batches runs as
 * its note says. One execution per event, a plain http n8n and Svc Trigger refused there are in
 * test/e2e/pull-trigger.test.ts. Figures go to .tmp/pull-batch-figures.json.
 *
 * @startsFirst: n8n's minute polls make it one of the suite's longest files, yet a small one, which
 * jest on a fresh clone would start last (harness/jest/test-order.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import {
	emitLeadsCreated,
	importReceiverWorkflow,
	pullReceiverInBatches,
	TWO_POLLS_MS,
	untilRanPastTrigger,
} from '../../harness/crash-receivers';
import type { Environment } from '../../harness/environment';
import { startEnvironment } from '../../harness/environment';
import { loadExample } from '../../harness/example-workflows';
import { mergeFigures } from '../../harness/figures';
import { activate, deactivate, executeWorkflow, importWorkflow } from '../../harness/n8n/api';
import { getExecution, listExecutions, settledExecutions } from '../../harness/n8n/executions';
import { nodeError, nodeOutput } from '../../harness/n8n/node-results';
import { runtimeVersions } from '../../harness/runtime-versions';
import { poll } from '../../harness/wait';
import { upsertLead } from '../../sandbox/operations';

jest.setTimeout(15 * 60_000);

const WORKFLOW_NAME = 'Svc: new leads in batches';
const figures: Record<string, IDataObject> = {};

afterAll(async () => {
	// Each major may run in its own jest process: the other's figures are kept.
	await mergeFigures('pull-batch-figures.json', figures);
});

describe.each(runtimeVersions('SVC_E2E_N8N'))(
	'n8n %s: Svc Pull Trigger in batches (Events per Execution: Many, Batch Size 50)',
	(version) => {
		const BATCH_SIZE = 50;
		const batchTrigger = pullReceiverInBatches(BATCH_SIZE);
		let env: Environment;
		let batchWorkflowId: string;
		beforeAll(async () => {
			// The pull trigger needs no public URL: the n8n the suite's files share serves it as well as a
			// plain http one, with no start of its own (the plain http case is test/e2e/pull-trigger.test.ts).
			env = await startEnvironment({ version, shared: true });
			const imported = await importReceiverWorkflow(env.n8n, WORKFLOW_NAME, batchTrigger, {
				sandboxUrl: env.sandbox.url,
				credential: env.credential,
			});
			batchWorkflowId = imported.id;
		}, 15 * 60_000);
		afterAll(async () => {
			await env?.stop();
		});

		const emit = (count: number): string[] => emitLeadsCreated(env.sandbox.state, count);
		const waitUntilRan = async (ids: string[]): Promise<number[]> =>
			await untilRanPastTrigger(env.sandbox.state, ids);

		/** The events each of the workflow's executions held, oldest execution first; every one must have succeeded. */
		const batchesRun = async (): Promise<string[][]> => {
			const executions = await settledExecutions(env.n8n, batchWorkflowId);
			expect(executions.filter((execution) => execution.status !== 'success')).toEqual([]);
			const batches: string[][] = [];
			for (const { id } of [...executions].reverse()) {
				const execution = await getExecution(env.n8n, id);
				batches.push(
					nodeOutput(execution, batchTrigger.name).map((item) => item.json.id as string),
				);
			}
			return batches;
		};

		it('200 events from while it was unpublished and 3 after run once each, as the items of 5 executions', async () => {
			await activate(env.n8n, batchWorkflowId);
			await deactivate(env.n8n, batchWorkflowId);
			const missed = emit(200);
			const published = Date.now();
			await activate(env.n8n, batchWorkflowId);
			const live = emit(3);
			const ids = [...missed, ...live];
			const runs = await waitUntilRan(ids);
			const batches = await batchesRun();
			figures[version] = {
				catchUp200AndLive3: {
					ms: Date.now() - published,
					executions: batches.length,
				},
			};
			expect(runs.filter((count) => count !== 1)).toEqual([]);
			// Each execution holds a run of the events in order, at most 50: ⌈203 / 50⌉ = 5
			// executions, the live events in the last (with the backlog's rest if the same poll read
			// them). Executions started together may be stored in another order: sorted by their first event.
			const byFirstEvent = [...batches].sort((a, b) => ids.indexOf(a[0]) - ids.indexOf(b[0]));
			expect(byFirstEvent.flat()).toEqual(ids);
			expect(batches.every((batch) => batch.length <= BATCH_SIZE)).toBe(true);
			expect(batches).toHaveLength(Math.ceil(ids.length / BATCH_SIZE));
		});

		it('Fetch Test Event shows what a run would get: the newest 50 events, oldest first', async () => {
			// Unpublished, as a person fetches a test event while building: no poll runs these events,
			// which the next test would count.
			await deactivate(env.n8n, batchWorkflowId);
			const newest = emit(3);
			const execution = await executeWorkflow(env.n8n, batchWorkflowId, {
				triggerNode: batchTrigger.name,
			});
			const shown = nodeOutput(execution, batchTrigger.name).map((item) => item.json.id);
			expect(shown).toHaveLength(BATCH_SIZE);
			expect(shown.slice(-3)).toEqual(newest);
		});

		it('a 410 (the service lost the events it had not read) is a failed execution in the Executions list naming the workflow, the node and the span; the trigger reads on', async () => {
			await deactivate(env.n8n, batchWorkflowId);
			const before = (await listExecutions(env.n8n, batchWorkflowId)).length;
			// The service forgets every event, the last one this trigger ran among them.
			env.sandbox.state.eventLog.clear();
			await activate(env.n8n, batchWorkflowId);
			const later = emit(2);
			const runs = await waitUntilRan(later);
			expect(runs).toEqual([1, 1]);
			const executions = await settledExecutions(env.n8n, batchWorkflowId);
			const failed = executions.filter((execution) => execution.status === 'error');
			expect(failed).toHaveLength(1);
			expect(executions.length - before).toBe(2);
			const execution = await getExecution(env.n8n, failed[0].id);
			const nodeMessage = nodeError(execution, batchTrigger.name)?.message;
			const message =
				execution.data?.resultData.error?.message ??
				(typeof nodeMessage === 'string' ? nodeMessage : '');
			expect(message).toContain(`"${batchTrigger.name}" of workflow "${WORKFLOW_NAME}"`);
			expect(message).toMatch(
				/Events created from \S+ \(after event evt_\w+\) until 30 days ago may be missing/,
			);
			await deactivate(env.n8n, batchWorkflowId);
		});

		it('the example "Svc: sync new leads in batches" as its note says: three new leads are three rows of one execution', async () => {
			const { id } = await importWorkflow(
				env.n8n,
				loadExample('sync-new-leads-in-batches.json', env.credential),
			);
			// Published once, so that it reads on from there; the leads come while it is unpublished and
			// publishing reads them at once, instead of at n8n's next minute poll (live events after
			// publishing are the batch test's above).
			await activate(env.n8n, id);
			await deactivate(env.n8n, id);
			const emails = [1, 2, 3].map((n) => `batch-${n}-${version}@example.com`);
			for (const email of emails) upsertLead(env.sandbox.state, { email });
			await activate(env.n8n, id);
			const execution = await poll(
				async () => {
					const [ended] = await settledExecutions(env.n8n, id);
					return ended && (await getExecution(env.n8n, ended.id));
				},
				{
					timeoutMs: TWO_POLLS_MS,
					everyMs: 500,
					timedOut: () => {
						throw new Error('The example ran no execution within two polls');
					},
				},
			);
			await deactivate(env.n8n, id);
			expect(execution.status).toBe('success');
			expect(nodeOutput(execution, 'Row per Lead').map((item) => item.json.email)).toEqual(emails);
			expect(nodeOutput(execution, 'Get Lead', 1)).toEqual([]);
			expect(await listExecutions(env.n8n, id)).toHaveLength(1);
		});
	},
);
