/**
 * Svc Pull Trigger in a real n8n whose webhook URL is plain http, as on a laptop or behind a
 * firewall: the service cannot call it, and events still start the workflow, each once, also
 * those from while the workflow was unpublished, one execution per event or in batches; Svc
 * Trigger is refused there. Publishing again is in test/e2e/pull-trigger-republish.test.ts, the
 * kill in the middle of a backlog in test/recovery/pull-trigger.test.ts, the catch-up beside Svc
 * Trigger in test/recovery/pull-catch-up.test.ts. Figures go to .tmp/pull-figures.json.
 *
 * @startsFirst: n8n's minute polls make it one of the suite's longest files, yet a small one, which
 * jest on a fresh clone would start last (harness/jest/test-order.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import {
	emitLeadsCreated,
	importReceiverWorkflow,
	pullReceiverInBatches,
	SVC_PULL_TRIGGER_RECEIVER,
	TWO_POLLS_MS,
	untilRanPastTrigger,
} from '../../harness/crash-receivers';
import type { Environment } from '../../harness/environment';
import { startEnvironment } from '../../harness/environment';
import { mergeFigures } from '../../harness/figures';
import { loadExample } from '../../harness/example-workflows';
import { activate, deactivate, executeWorkflow, importWorkflow } from '../../harness/n8n/api';
import { getExecution, listExecutions, settledExecutions } from '../../harness/n8n/executions';
import { nodeError, nodeOutput } from '../../harness/n8n/node-results';
import { runtimeVersions } from '../../harness/runtime-versions';
import { poll } from '../../harness/wait';
import { upsertLead } from '../../sandbox/operations';

jest.setTimeout(15 * 60_000);

const TRIGGER = SVC_PULL_TRIGGER_RECEIVER.name;
const figures: Record<string, IDataObject> = {};

afterAll(async () => {
	// Each major may run in its own jest process: the other's figures are kept.
	await mergeFigures('pull-figures.json', figures);
});

describe.each(runtimeVersions('SVC_E2E_N8N'))(
	'n8n %s: Svc Pull Trigger with a plain http webhook URL',
	(version) => {
		let env: Environment;
		let workflowId: string;
		beforeAll(async () => {
			// An n8n of its own: plain http (no public https URL), which the shared one is not.
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

		it("publishes with no https URL; the events created while it was unpublished and after run once each, as the Svc Trigger's event marked pull", async () => {
			await activate(env.n8n, workflowId);
			await deactivate(env.n8n, workflowId);
			const missed = emit(200);
			const published = Date.now();
			await activate(env.n8n, workflowId);
			const live = emit(3);
			const ids = [...missed, ...live];
			const runs = await waitUntilRan(ids);
			figures[version].catchUp200AndLive3Ms = Date.now() - published;
			expect(runs.filter((count) => count !== 1)).toEqual([]);
			// An event runs past the trigger before n8n stores its execution's data: read them once
			// stored, each on its own, newest first (the live events ran last).
			let event: IDataObject | undefined;
			for (const { id } of await settledExecutions(env.n8n, workflowId)) {
				const execution = await getExecution(env.n8n, id);
				event = nodeOutput(execution, TRIGGER)
					.map((item) => item.json)
					.find((output) => output.id === live[2]);
				if (event) break;
			}
			expect(event).toMatchObject({
				id: live[2],
				type: 'lead.created',
				data: { email: 'pull-2@example.test' },
				meta: { delivery: 'pull' },
			});
			expect(Object.keys(event ?? {}).sort()).toEqual(['created_at', 'data', 'id', 'meta', 'type']);
			// Polls that find nothing new start nothing, and no execution failed.
			const executions = await settledExecutions(env.n8n, workflowId);
			expect(executions.filter((execution) => execution.status !== 'success')).toEqual([]);
		});

		it('Fetch Test Event shows the newest event at once', async () => {
			// Unpublished, as a person fetches a test event while building: no poll runs it meanwhile.
			await deactivate(env.n8n, workflowId);
			const [newest] = emit(1);
			const execution = await executeWorkflow(env.n8n, workflowId, { triggerNode: TRIGGER });
			expect(nodeOutput(execution, TRIGGER).map((item) => item.json.id)).toEqual([newest]);
		});

		it('a service without the event list: publishing fails and says to use Svc Trigger with a public https URL', async () => {
			await deactivate(env.n8n, workflowId);
			env.sandbox.state.eventLog.configure({ enabled: false });
			try {
				await expect(activate(env.n8n, workflowId)).rejects.toThrow(
					/no event list.*Svc Trigger|Svc Trigger.*https/s,
				);
			} finally {
				env.sandbox.state.eventLog.configure({ enabled: true });
			}
		});

		it('Svc Trigger in the same n8n: publishing is refused, saying how to fix it, and nothing subscribes', async () => {
			const workflow = await importWorkflow(
				env.n8n,
				loadExample('react-to-lead-created.json', env.credential),
			);
			await expect(activate(env.n8n, workflow.id)).rejects.toThrow(/only to https URLs/);
			expect(env.sandbox.state.store.subscriptions.size).toBe(0);
		});

		describe('in batch mode (Events per Execution: Many, Batch Size 50)', () => {
			const BATCH_SIZE = 50;
			const batchTrigger = pullReceiverInBatches(BATCH_SIZE);
			let batchWorkflowId: string;
			beforeAll(async () => {
				await deactivate(env.n8n, workflowId);
				const imported = await importReceiverWorkflow(
					env.n8n,
					'Svc: new leads in batches, no public URL',
					batchTrigger,
					{ sandboxUrl: env.sandbox.url, credential: env.credential },
				);
				batchWorkflowId = imported.id;
			});

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
				figures[version].batchCatchUp200AndLive3 = {
					ms: Date.now() - published,
					executions: batches.length,
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
				expect(message).toContain(
					`"${batchTrigger.name}" of workflow "Svc: new leads in batches, no public URL"`,
				);
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
				expect(nodeOutput(execution, 'Row per Lead').map((item) => item.json.email)).toEqual(
					emails,
				);
				expect(nodeOutput(execution, 'Get Lead', 1)).toEqual([]);
				expect(await listExecutions(env.n8n, id)).toHaveLength(1);
			});
		});
	},
);
