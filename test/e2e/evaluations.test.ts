/**
 * A real n8n evaluation over a workflow with Hand to Assistant: a data table of leads, n8n's
 * Evaluation Trigger, the Svc node, and an Evaluation node setting a metric, started as the
 * editor's "Run evaluation" does. n8n runs each row in its `evaluation` mode, where the node holds
 * back what would message a lead.
 */
import { randomUUID } from 'node:crypto';

import type { Environment } from '../../harness/environment';
import { startEnvironment } from '../../harness/environment';
import type { WorkflowInput } from '../../harness/n8n/api';
import { importWorkflow, restData } from '../../harness/n8n/api';
import { listExecutions } from '../../harness/n8n/executions';
import { runtimeVersions } from '../../harness/runtime-versions';
import { until } from '../../harness/wait';

jest.setTimeout(180_000);

const TAKEOVER_ROUTE = 'POST /v1/leads/{lead_id}/assistant-takeover';
const LEADS = ['lead_0001', 'lead_0002', 'lead_0003'];

interface TestRun {
	id: string;
	status: string;
	errorCode?: string | null;
	metrics?: Record<string, number> | null;
}

describe.each(runtimeVersions('SVC_E2E_N8N'))(
	'n8n %s: an evaluation run of a workflow with Hand to Assistant',
	(version) => {
		let env: Environment;

		beforeAll(async () => {
			// An n8n of its own: with the other files writing to a shared n8n 1.123 at the same
			// moment, its data-table insert once answered 500 "Transaction is not started yet".
			env = await startEnvironment({ version });
		}, 15 * 60_000);
		afterAll(async () => {
			await env?.stop();
		});

		function evaluatedWorkflow(dataTableId: string): WorkflowInput {
			return {
				name: `evaluation ${version}`,
				nodes: [
					{
						name: 'Dataset Row',
						type: 'n8n-nodes-base.evaluationTrigger',
						typeVersion: 4.7,
						position: [0, 0],
						parameters: {
							source: 'dataTable',
							dataTableId: { __rl: true, mode: 'id', value: dataTableId },
						},
					},
					{
						name: 'Hand Over',
						type: 'n8n-nodes-svc.svc',
						typeVersion: 1,
						position: [240, 0],
						parameters: {
							resource: 'conversation',
							operation: 'assistantTakeover',
							leadId: { __rl: true, mode: 'id', value: '={{ $json.lead_id }}' },
							note: 'From an evaluation',
						},
						credentials: { svcApi: { id: env.credential.id, name: env.credential.name } },
					},
					{
						name: 'Score',
						type: 'n8n-nodes-base.evaluation',
						typeVersion: 4.7,
						position: [480, 0],
						parameters: {
							operation: 'setMetrics',
							metric: 'customMetrics',
							metrics: {
								assignments: [
									{
										id: randomUUID(),
										name: 'held_back',
										value: '={{ $json.sent === false ? 1 : 0 }}',
										type: 'number',
									},
								],
							},
						},
					},
				],
				connections: {
					'Dataset Row': { main: [[{ node: 'Hand Over', type: 'main', index: 0 }]] },
					'Hand Over': { main: [[{ node: 'Score', type: 'main', index: 0 }]] },
				},
				settings: { executionOrder: 'v1' },
			};
		}

		it('runs every row in evaluation mode: the takeover is held back for each (metric 1), the service gets none', async () => {
			const project = await restData<{ id: string }>(env.n8n, 'GET', '/projects/personal');
			const table = await restData<{ id: string }>(
				env.n8n,
				'POST',
				`/projects/${project.id}/data-tables`,
				{
					name: `evaluation leads ${version}`,
					columns: [{ name: 'lead_id', type: 'string' }],
				},
			);
			await restData(env.n8n, 'POST', `/projects/${project.id}/data-tables/${table.id}/insert`, {
				data: LEADS.map((lead_id) => ({ lead_id })),
				returnType: 'count',
			});
			const workflow = await importWorkflow(env.n8n, evaluatedWorkflow(table.id));
			env.sandbox.state.requests.clear();

			// 202 Accepted; 2.41 names the run, 1.123 does not (then it is the workflow's only run).
			// 1.123 answers before it stores the run, so the list can be empty at first.
			const started = await env.n8n.rest<{ success: boolean; testRunId?: string }>(
				'POST',
				`/workflows/${workflow.id}/test-runs/new`,
			);
			expect(started).toMatchObject({ status: 202, body: { success: true } });
			let run: TestRun | undefined;
			await until(
				'the evaluation ended',
				async () => {
					const runs = await restData<TestRun[]>(
						env.n8n,
						'GET',
						`/workflows/${workflow.id}/test-runs`,
					);
					expect(runs.length).toBeLessThanOrEqual(1);
					run = runs[0];
					if (run && started.body.testRunId) expect(run.id).toBe(started.body.testRunId);
					return run !== undefined && !['new', 'running'].includes(run.status);
				},
				{ timeoutMs: 120_000, everyMs: 500 },
			);
			expect(run).toMatchObject({ status: 'completed', metrics: { held_back: 1 } });
			const cases = await restData<Array<{ status: string; metrics?: Record<string, number> }>>(
				env.n8n,
				'GET',
				`/workflows/${workflow.id}/test-runs/${run?.id ?? ''}/test-cases`,
			);
			expect(cases.map((testCase) => [testCase.status, testCase.metrics?.held_back])).toEqual(
				LEADS.map(() => ['success', 1]),
			);
			const evaluations = (await listExecutions(env.n8n, workflow.id)).filter(
				(execution) => execution.mode === 'evaluation',
			);
			expect(evaluations).toHaveLength(LEADS.length);
			expect(
				env.sandbox.state.requests.all().filter((request) => request.route === TAKEOVER_ROUTE),
			).toEqual([]);
		});
	},
);
