/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- throwaway test values, not secrets */
import { Webhook } from 'standardwebhooks';

import type { StoredSubscription } from '../../sandbox/store';
import { upsertLead } from '../../sandbox/operations';
import type { WorkflowRecord } from '../../harness/n8n/api';
import type { ExecutionRecord } from '../../harness/n8n/executions';
import {
	activate,
	deactivate,
	importWorkflow,
	startTestListen,
	stopTestListen,
	updateCredential,
} from '../../harness/n8n/api';
import {
	getExecution,
	isUnfinished,
	listExecutions,
	waitForExecutions,
} from '../../harness/n8n/executions';
import type { Environment } from '../../harness/environment';
import { FULL_KEY, startEnvironment } from '../../harness/environment';
import { loadExample } from '../../harness/example-workflows';
import { nodeOutput } from '../../harness/n8n/node-results';
import { runtimeVersions } from '../../harness/runtime-versions';
import { until } from '../../harness/wait';

jest.setTimeout(120_000);

const TRIGGER = 'On Lead Created';
/** Another all-scopes key of the sandbox's account: what a user pastes when rotating. */
const ROTATED_KEY = 'svc_live_LiveFormatDemoKey0000005';

/**
 * The trigger as the editor uses it, in a real n8n: "Listen for test event" while the workflow
 * is published, a listen left open when n8n stops, a rotated API key, and the signing secret
 * nowhere outside the trigger.
 */
describe.each(runtimeVersions('SVC_E2E_N8N'))(
	'n8n %s: Svc Trigger beside the editor',
	(version) => {
		let env: Environment;
		let workflow: WorkflowRecord;
		beforeAll(async () => {
			// An n8n of its own: its tests restart n8n.
			env = await startEnvironment({ version });
			workflow = await importWorkflow(
				env.n8n,
				loadExample('react-to-lead-created.json', env.credential),
			);
			await activate(env.n8n, workflow.id);
		}, 15 * 60_000);
		afterAll(async () => {
			await env?.stop();
		});

		const subscriptions = (): StoredSubscription[] => [
			...env.sandbox.state.store.subscriptions.values(),
		];
		const testListens = () =>
			subscriptions().filter((subscription) => subscription.url.includes('/webhook-test/'));
		const published = () =>
			subscriptions().filter((subscription) =>
				subscription.url.startsWith(`${env.n8n.webhookBaseUrl}/`),
			);
		const byMode = async (mode: 'manual' | 'production'): Promise<ExecutionRecord[]> =>
			(await listExecutions(env.n8n, workflow.id)).filter(
				(execution) => (execution.mode === 'manual') === (mode === 'manual'),
			);

		/** The trigger's event id in each production run, oldest first, once at least `atLeast` have finished. */
		async function productionEvents(atLeast: number): Promise<string[]> {
			let runs: ExecutionRecord[] = [];
			await until(
				`${atLeast} production runs finished`,
				async () => {
					runs = await byMode('production');
					return runs.length >= atLeast && !runs.some(isUnfinished);
				},
				{ timeoutMs: 30_000 },
			);
			const oldestFirst = [...runs].sort((a, b) => Number(a.id) - Number(b.id));
			return await Promise.all(
				oldestFirst.map(
					async (execution) =>
						nodeOutput(await getExecution(env.n8n, execution.id, true), TRIGGER)[0]?.json
							.id as string,
				),
			);
		}

		/** Posts one event, signed with that subscription's secret, as the service delivers it. */
		async function deliver(subscription: StoredSubscription, id: string) {
			const body = JSON.stringify({
				id,
				type: 'lead.created',
				created_at: new Date().toISOString(),
				data: { id: 'lead_0001', email: 'listen@example.com' },
			});
			const timestamp = Math.floor(Date.now() / 1000);
			const headers = {
				'content-type': 'application/json',
				'webhook-id': id,
				'webhook-timestamp': String(timestamp),
				'webhook-signature': new Webhook(subscription.secret).sign(
					id,
					new Date(timestamp * 1000),
					body,
				),
			};
			return await env.n8n.fetch<{ received?: boolean; duplicate?: boolean }>(subscription.url, {
				method: 'POST',
				headers,
				body,
			});
		}

		async function listen(): Promise<StoredSubscription> {
			await startTestListen(env.n8n, workflow.id, TRIGGER);
			await until('test subscription created', () => testListens().length === 1, {
				timeoutMs: 15_000,
			});
			return testListens()[0];
		}

		it.each([
			['the test copy first', ['test', 'production'] as const],
			['the production copy first', ['production', 'test'] as const],
		])(
			'an event sent to both subscriptions, %s, runs once in production and once in the editor',
			async (_, order) => {
				const productionBefore = (await byMode('production')).length;
				const manualBefore = (await byMode('manual')).length;
				const targets = { test: await listen(), production: published()[0] };
				const id = `evt_both_${order[0]}`;
				for (const copy of order) {
					const answer = await deliver(targets[copy], id);
					expect([copy, answer.status, answer.body]).toEqual([copy, 200, { received: true }]);
				}
				await until(
					'both runs finished',
					async () =>
						(await byMode('production')).length === productionBefore + 1 &&
						(await byMode('manual')).length === manualBefore + 1,
					{ timeoutMs: 20_000 },
				);
				// n8n ends the listen after the run it started, and the trigger deletes the test subscription.
				await until('test subscription deleted', () => testListens().length === 0, {
					timeoutMs: 15_000,
				});
				expect(published()).toHaveLength(1);
				// Each subscription's repeat is still a duplicate.
				expect((await deliver(targets.production, id)).body).toEqual({
					received: true,
					duplicate: true,
				});
			},
		);

		it('Stop listening deletes the test subscription and leaves the published one', async () => {
			await listen();
			await stopTestListen(env.n8n, workflow.id);
			await until('test subscription deleted', () => testListens().length === 0, {
				timeoutMs: 15_000,
			});
			expect(published()).toHaveLength(1);
		});

		it('a listen left open when n8n stops is deleted at the next publish once it is stale, never while it may be open', async () => {
			const left = await listen();
			// Publishing again while the listen is young leaves it: another tab may be listening.
			await deactivate(env.n8n, workflow.id);
			await activate(env.n8n, workflow.id);
			expect(testListens().map((subscription) => subscription.id)).toEqual([left.id]);

			env.n8n = await env.n8n.restart();
			expect(testListens().map((subscription) => subscription.id)).toEqual([left.id]);
			// Older than n8n's 2-minute listen limit plus the trigger's margin: as if 4 minutes passed.
			env.sandbox.state.store.subscriptions.set({
				...left,
				created_at: new Date(Date.now() - 4 * 60_000).toISOString(),
			});
			await deactivate(env.n8n, workflow.id);
			await activate(env.n8n, workflow.id);
			expect(testListens()).toHaveLength(0);
			expect(published()).toHaveLength(1);
		});

		it('after the API key is rotated, deliveries are refused with 503 and a log line until the trigger subscribes anew', async () => {
			// This subscription was made at the last publish; no delivery has opened its secret in this process yet.
			const before = published()[0];
			await updateCredential(
				env.n8n,
				env.credential,
				env.credentialData({ apiKey: ROTATED_KEY, baseUrl: env.sandbox.url }),
			);
			const refused = await deliver(before, 'evt_after_rotation');
			expect(refused.status).toBe(503);
			expect(await env.n8n.log()).toMatch(
				/cannot verify deliveries: its signing secret does not open with the credential's API key[^\n]*Unpublish and publish the workflow again/,
			);

			// n8n re-checks published triggers at start-up: the stored secret does not open, so the trigger subscribes anew.
			env.n8n = await env.n8n.restart();
			await until(
				'subscribed anew',
				() => published().length === 1 && published()[0].id !== before.id,
				{ timeoutMs: 20_000 },
			);
			expect(subscriptions().some((subscription) => subscription.id === before.id)).toBe(false);
			const executions = (await listExecutions(env.n8n, workflow.id)).length;
			upsertLead(env.sandbox.state, { email: 'after.rotation@example.com' });
			await waitForExecutions(env.n8n, workflow.id, executions + 1, 20_000);
		});

		it('an accepted event is remembered across a restart: its re-delivery is answered 200 and stops at the trigger', async () => {
			const before = (await byMode('production')).length;
			const first = await deliver(published()[0], 'evt_before_restart');
			expect([first.status, first.body]).toEqual([200, { received: true }]);
			await until(
				'its run finished',
				async () => (await byMode('production')).length === before + 1,
				{ timeoutMs: 20_000 },
			);

			// A new process has no in-memory record: only the claim in n8n's processed-data table can say "seen".
			env.n8n = await env.n8n.restart();
			const again = await deliver(published()[0], 'evt_before_restart');
			expect([again.status, again.body]).toEqual([200, { received: true }]);
			// Sent after the re-delivery: once both executions have ended, the re-delivery's passed nothing on.
			const fresh = await deliver(published()[0], 'evt_after_restart');
			expect([fresh.status, fresh.body]).toEqual([200, { received: true }]);
			const events = (await productionEvents(before + 3)).slice(before);
			expect(events.filter((id) => id !== undefined).sort()).toEqual([
				'evt_after_restart',
				'evt_before_restart',
			]);
			expect(events).toHaveLength(3);
			// A third copy reaches the process that claimed it after the restart: answered at once, no execution.
			expect((await deliver(published()[0], 'evt_before_restart')).body).toEqual({
				received: true,
				duplicate: true,
			});
		});

		it("no signing secret or API key in any stored execution, the public API's answers or the debug log", async () => {
			const secrets = [
				FULL_KEY,
				ROTATED_KEY,
				...env.sandbox.state.store.issuedSecrets.map((secret) => secret.slice('whsec_'.length)),
			];
			expect(env.sandbox.state.store.issuedSecrets.length).toBeGreaterThanOrEqual(5);
			let answers = JSON.stringify((await env.n8n.api('GET', `/workflows/${workflow.id}`)).body);
			for (const execution of await listExecutions(env.n8n, workflow.id, { includeData: true }))
				answers += JSON.stringify(execution);
			expect(answers).toContain('evt_both_test');
			// 1.x copies static data into every execution: the search covers the trigger's stored subscription.
			if (version === 'v1') expect(answers).toContain('sealedSecret');
			const log = await env.n8n.log();
			expect(log.length).toBeGreaterThan(10_000);
			const found = secrets.filter((secret) => answers.includes(secret) || log.includes(secret));
			expect(found).toEqual([]);
		});
	},
);
