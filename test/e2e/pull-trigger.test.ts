/**
 * Svc Pull Trigger in a real n8n whose webhook URL is plain http, as on a laptop or behind a
 * firewall: the service cannot call it, and events still start the workflow, each once, also
 * after the workflow was unpublished and after n8n was killed in the middle of a backlog.
 * Figures go to .tmp/pull-figures.json.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	ranPastTrigger,
	receiverWorkflow,
	SVC_PULL_TRIGGER_RECEIVER,
	SVC_TRIGGER_RECEIVER,
} from '../../harness/crash-receivers';
import type { Environment } from '../../harness/environment';
import { startEnvironment } from '../../harness/environment';
import { loadExample, withCredential } from '../../harness/example-workflows';
import { upsertLead } from '../../sandbox/operations';
import { mergeFigures } from '../../harness/figures';
import {
	activate,
	deactivate,
	executeWorkflow,
	getExecution,
	importWorkflow,
	listExecutions,
	settledExecutions,
	UNFINISHED,
} from '../../harness/n8n/api';
import { retryCutShortRuns } from '../../harness/kill-mid-burst';
import { nodeOutput } from '../../harness/n8n/node-results';
import { runtimeVersions } from '../../harness/runtime-versions';
import { until } from '../../harness/wait';

jest.setTimeout(15 * 60_000);

const TRIGGER = SVC_PULL_TRIGGER_RECEIVER.name;
/** n8n polls every minute at the most often, at a random second: two polls and some time for the runs. */
const TWO_POLLS_MS = 150_000;
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
			env = await startEnvironment({ version, protocol: 'http' });
			figures[version] = {};
			const imported = await importWorkflow(
				env.n8n,
				withCredential(
					receiverWorkflow(
						'Svc: new leads, no public URL',
						SVC_PULL_TRIGGER_RECEIVER,
						env.sandbox.url,
					),
					env.credential,
				),
			);
			workflowId = imported.id;
		}, 15 * 60_000);
		afterAll(async () => {
			await env?.stop();
		});

		function emit(count: number): string[] {
			return Array.from(
				{ length: count },
				(_, n) =>
					env.sandbox.state.deliveries.emit('lead.created', { email: `pull-${n}@example.test` })
						.event.id,
			);
		}

		/** Waits until every event ran past the trigger; returns how often each of `ids` ran. */
		async function waitUntilRan(ids: string[], timeoutMs = TWO_POLLS_MS): Promise<number[]> {
			await until(
				`${ids.length} events to run past the trigger`,
				() => {
					const ran = ranPastTrigger(env.sandbox.state);
					return ids.every((id) => ran.has(id));
				},
				{ timeoutMs, everyMs: 250 },
			);
			const ran = ranPastTrigger(env.sandbox.state);
			return ids.map((id) => ran.get(id) ?? 0);
		}

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

		it('SIGKILL in the middle of a backlog: after a restart every event runs, and none twice', async () => {
			await deactivate(env.n8n, workflowId);
			const ids = emit(600);
			await activate(env.n8n, workflowId);
			const ranOf = () => {
				const ran = ranPastTrigger(env.sandbox.state);
				return ids.filter((id) => ran.has(id)).length;
			};
			await until('a third of the backlog to run', () => ranOf() >= 200, {
				timeoutMs: TWO_POLLS_MS,
				everyMs: 100,
			});
			const ranBeforeKill = ranOf();
			await env.n8n.kill();
			env.n8n = await env.n8n.restart();
			// A run the kill cut short holds its event: n8n marks it crashed, and a person retries it
			// when its event did not run past the trigger.
			const retried = await retryCutShortRuns(env.n8n, workflowId, new Set(ids), env.sandbox.state);
			const runs = await waitUntilRan(ids, 2 * TWO_POLLS_MS);
			figures[version].crash = {
				backlog: ids.length,
				ranBeforeKill,
				crashedRetried: retried,
				lost: runs.filter((count) => count === 0).length,
				twice: runs.filter((count) => count > 1).length,
			};
			expect(runs.filter((count) => count !== 1)).toEqual([]);
		});

		it('Fetch Test Event shows the newest event at once', async () => {
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
	},
);

describe.each(runtimeVersions('SVC_E2E_N8N'))(
	'n8n %s: Svc Trigger and Svc Pull Trigger in one workflow, over https',
	(version) => {
		let env: Environment;
		beforeAll(async () => {
			// Retrying for longer, as the service does: on a loaded machine every try of a delivery
			// can time out while n8n works through the catch-up, and a later one then gets through.
			env = await startEnvironment({
				version,
				delivery: { retryDelaysMs: [200, 500, 2_000, 5_000, 10_000] },
			});
		}, 15 * 60_000);
		afterAll(async () => {
			await env?.stop();
		});

		it('catch-up: 200 events from while it was unpublished and 50 delivered during the catch-up run once each', async () => {
			const { id } = await importWorkflow(
				env.n8n,
				withCredential(
					receiverWorkflow(
						'Svc: webhook with pull catch-up',
						[SVC_TRIGGER_RECEIVER, SVC_PULL_TRIGGER_RECEIVER],
						env.sandbox.url,
					),
					env.credential,
				),
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
		});

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
						executions.every((execution) => !UNFINISHED.includes(execution.status))
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
