/**
 * Svc Pull Trigger in a real n8n whose webhook URL is plain http, as on a laptop or behind a
 * firewall: the service cannot call it, and events still start the workflow, each once, also
 * those from while the workflow was unpublished; Svc Trigger is refused there. Batches are in
 * test/e2e/pull-trigger-batches.test.ts, publishing again in
 * test/e2e/pull-trigger-republish.test.ts, the kill in the middle of a backlog in
 * test/recovery/pull-trigger.test.ts, the catch-up beside Svc Trigger in
 * test/recovery/pull-catch-up.test.ts. Figures go to .tmp/pull-figures.json.
 *
 * @startsFirst: n8n's minute polls make it one of the suite's longest files, yet a small one, which
 * jest on a fresh clone would start last (harness/jest/test-order.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import {
	emitLeadsCreated,
	importReceiverWorkflow,
	SVC_PULL_TRIGGER_RECEIVER,
	untilRanPastTrigger,
} from '../../harness/crash-receivers';
import type { Environment } from '../../harness/environment';
import { startEnvironment } from '../../harness/environment';
import { mergeFigures } from '../../harness/figures';
import { loadExample } from '../../harness/example-workflows';
import { activate, deactivate, executeWorkflow, importWorkflow } from '../../harness/n8n/api';
import { getExecution, settledExecutions } from '../../harness/n8n/executions';
import { nodeOutput } from '../../harness/n8n/node-results';
import { runtimeVersions } from '../../harness/runtime-versions';

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
		const waitUntilRan = async (ids: string[]): Promise<number[]> =>
			await untilRanPastTrigger(env.sandbox.state, ids);

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
	},
);
