/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- throwaway test values, not secrets */
import { randomUUID } from 'node:crypto';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { Webhook } from 'standardwebhooks';

import type { WorkflowInput, WorkflowRecord } from '../../harness/n8n/api';
import type { ExecutionRecord } from '../../harness/n8n/executions';
import {
	activate,
	deactivate,
	executeWorkflow,
	importCredential,
	importWorkflow,
	retryExecution,
	testCredential,
} from '../../harness/n8n/api';
import {
	getExecution,
	listExecutions,
	settledExecutionsWithData,
	waitForExecutions,
} from '../../harness/n8n/executions';
import { UUID_PATTERN } from '../../nodes/Svc/contract';
import { fireBurst } from '../../sandbox';
import { createSubscription, touchCampaign, upsertLead } from '../../sandbox/operations';
import type { Environment } from '../../harness/environment';
import { FULL_KEY, NO_SENSITIVE_KEY, startEnvironment } from '../../harness/environment';
import { loadExample } from '../../harness/example-workflows';
import { sendUntilAnswered } from '../../harness/delivery-log';
import { nodeError, nodeOutput, runsOfLead } from '../../harness/n8n/node-results';
import { runtimeVersions } from '../../harness/runtime-versions';
import { PEER_END_NODE, peerWorkflow } from '../../harness/peer-example';
import { until } from '../../harness/wait';

// The real n8n process: install (cached), start and package loading take their time.
jest.setTimeout(120_000);

/** SVC_E2E_N8N=v1|v2|all|v1,v2 (default all): the same tests on each n8n runtime, one after the other. */
describe.each(runtimeVersions('SVC_E2E_N8N'))('n8n %s', (version) => {
	let env: Environment;
	beforeAll(async () => {
		env = await startEnvironment({ version, shared: true });
	}, 15 * 60_000);
	afterAll(async () => {
		await env?.stop();
	});

	/** Manual Trigger → one Svc node per entry, in a line. */
	function actionWorkflow(
		name: string,
		steps: Array<{ name: string; parameters: INodeParameters; credentialId?: string }>,
	): WorkflowInput {
		const nodes: WorkflowInput['nodes'] = [
			{ name: 'Run', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
		];
		const connections: WorkflowInput['connections'] = {};
		let previous = 'Run';
		for (const step of steps) {
			nodes.push({
				name: step.name,
				type: 'n8n-nodes-svc.svc',
				typeVersion: 1,
				parameters: step.parameters,
				credentials: { svcApi: { id: step.credentialId ?? env.credential.id, name: 'Svc' } },
			});
			connections[previous] = { main: [[{ node: step.name, type: 'main', index: 0 }]] };
			previous = step.name;
		}
		return { name, nodes, connections, settings: { executionOrder: 'v1' } };
	}

	async function runOnce(workflow: WorkflowInput): Promise<ExecutionRecord> {
		const stored = await importWorkflow(env.n8n, workflow);
		return await executeWorkflow(env.n8n, stored.id);
	}

	function requestsTo(route: string) {
		return env.sandbox.state.requests.all().filter((request) => request.route === route);
	}

	const example = (file: string): WorkflowInput => loadExample(file, env.credential);

	describe('n8n loads the packed package', () => {
		it("n8n's credential test passes with a good key and fails clearly with bad ones", async () => {
			expect(await testCredential(env.n8n, env.credential.id)).toEqual({
				status: 'OK',
				message: expect.any(String) as unknown,
			});
			const malformed = await testCredential(env.n8n, {
				type: 'svcApi',
				data: env.credentialData({ apiKey: 'svc_live_short', baseUrl: env.sandbox.url }),
			});
			expect(malformed.status).toBe('Error');
			expect(malformed.message).toMatch(/not in an accepted format/);
			// The Svc node's credentialTest (testedBy) answers, so both majors give the package's text.
			const revoked = await testCredential(env.n8n, {
				type: 'svcApi',
				data: env.credentialData({
					apiKey: 'svc_live_RevokedOrNeverIssued000001',
					baseUrl: env.sandbox.url,
				}),
			});
			expect(revoked).toEqual({
				status: 'Error',
				message: expect.stringMatching(
					/^The API key was rejected \(401\): it is invalid, revoked or mistyped\. /,
				) as unknown,
			});
			expect(revoked.message).not.toContain('RevokedOrNeverIssued');
		});

		it("n8n calls none of n8n's own servers: the node panel's list of verified community nodes is empty, and the log has no failed call", async () => {
			// What the editor's node panel asks for; with the list on, n8n fetches it from api.n8n.io
			// (api-staging.n8n.io, as n8n runs here) and logs the failure where there is no internet.
			const listed = await env.n8n.rest<{ data: unknown[] }>('GET', '/community-node-types');
			expect(listed.status).toBe(200);
			expect(listed.body.data).toEqual([]);
			const calls = (await env.n8n.log())
				.split('\n')
				.filter((line) => /api(-staging)?\.n8n\.io|ENOTFOUND|Strapi/i.test(line));
			expect(calls).toEqual([]);
		});

		it("n8n's credential test names a wrong scheme and the fix, not a bare EPROTO", async () => {
			const address = env.sandbox.url.replace(/^http:/, 'https:');
			const wrongScheme = await testCredential(env.n8n, {
				type: 'svcApi',
				data: env.credentialData({ apiKey: FULL_KEY, baseUrl: address }),
			});
			expect(wrongScheme.status).toBe('Error');
			expect(wrongScheme.message).toMatch(
				/^Could not connect to https:\/\/127\.0\.0\.1:\d+ \((EPROTO|ERR_SSL_[A-Z_]+)\)\. The server at 127\.0\.0\.1:\d+ did not answer in TLS/,
			);
			expect(wrongScheme.message).toContain('change the Base URL to start with http://');
			expect(wrongScheme.message).not.toContain(FULL_KEY);
		});
	});

	describe('action workflows executed by n8n', () => {
		it('Lead: upsert with consent, then Get Many with Return All over several pages', async () => {
			const execution = await runOnce(
				actionWorkflow('e2e lead', [
					{
						name: 'Upsert',
						parameters: {
							resource: 'lead',
							operation: 'upsert',
							email: 'e2e.person@example.com',
							additionalFields: { first_name: 'E2E', external_id: 'crm-e2e-1' },
							consentStatus: 'granted',
							consentDetails: { channel: 'sms' },
						},
					},
					{
						name: 'All Leads',
						parameters: { resource: 'lead', operation: 'getAll', returnAll: true },
					},
				]),
			);
			expect(execution.status).toBe('success');
			expect(nodeOutput(execution, 'Upsert')[0].json).toMatchObject({
				email: 'e2e.person@example.com',
				upsert_result: 'created',
				custom_fields: { consent: { status: 'granted', channel: 'sms' } },
			});
			expect(nodeOutput(execution, 'All Leads')).toHaveLength(13);
			const [upsert] = requestsTo('POST /v1/leads');
			expect(upsert.headers.authorization).toBe(`Bearer ${FULL_KEY}`);
			expect(upsert.headers['idempotency-key']).toMatch(
				/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
			);
			expect(upsert.headers['x-api-key']).toBeUndefined();
			expect(requestsTo('GET /v1/leads').length).toBeGreaterThanOrEqual(3);
		});

		it('Conversation: threads of a lead and masked messages', async () => {
			const execution = await runOnce(
				actionWorkflow('e2e conversation', [
					{
						name: 'Threads',
						parameters: {
							resource: 'conversation',
							operation: 'getAllThreads',
							returnAll: true,
							filters: { lead_id: 'lead_0002' },
						},
					},
					{
						name: 'Messages',
						parameters: {
							resource: 'conversation',
							operation: 'getMessages',
							threadId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
							returnAll: true,
						},
					},
				]),
			);
			expect(execution.status).toBe('success');
			expect(
				nodeOutput(execution, 'Threads').every((item) => item.json.lead_id === 'lead_0002'),
			).toBe(true);
			expect(nodeOutput(execution, 'Messages').length).toBeGreaterThan(0);
		});

		it('Campaign: dispatch once with an Idempotency-Key, and a second run of the same dispatch sends nothing; without campaigns:danger the error names the scope', async () => {
			const dispatchWorkflow = actionWorkflow('e2e dispatch', [
				{
					name: 'Dispatch',
					parameters: {
						resource: 'campaign',
						operation: 'dispatch',
						campaignId: { __rl: true, mode: 'id', value: 'cmp_0002' },
						confirmDispatch: true,
						leadIds: 'lead_0003, lead_0004',
					},
				},
			]);
			const dispatches = env.sandbox.state.stats.snapshot().dispatches;
			const ok = await runOnce(dispatchWorkflow);
			expect(ok.status).toBe('success');
			expect(nodeOutput(ok, 'Dispatch')[0].json).toMatchObject({
				campaign_id: 'cmp_0002',
				status: 'queued',
				sent_to: 'listed_leads',
				lead_ids: ['lead_0003', 'lead_0004'],
				replayed: false,
			});
			const [firstRequest] = requestsTo('POST /v1/campaigns/{campaign_id}/dispatch');
			expect(firstRequest.headers['idempotency-key']).toMatch(UUID_PATTERN);

			// Run again, as a second click would: the service answers with the first dispatch.
			const again = await runOnce(dispatchWorkflow);
			expect(again.status).toBe('success');
			expect(nodeOutput(again, 'Dispatch')[0].json).toMatchObject({
				replayed: true,
				dispatch_id: nodeOutput(ok, 'Dispatch')[0].json.dispatch_id,
			});
			expect(env.sandbox.state.stats.snapshot().dispatches).toBe(dispatches + 1);

			const limited = await importCredential(env.n8n, {
				name: 'Svc limited',
				type: 'svcApi',
				data: env.credentialData({ apiKey: NO_SENSITIVE_KEY, baseUrl: env.sandbox.url }),
			});
			const denied = await runOnce(
				actionWorkflow('e2e dispatch denied', [
					{
						name: 'Dispatch',
						credentialId: limited.id,
						parameters: {
							resource: 'campaign',
							operation: 'dispatch',
							campaignId: { __rl: true, mode: 'id', value: 'cmp_0002' },
							confirmDispatch: true,
							audience: 'wholeAudience',
						},
					},
				]),
			);
			expect(denied.status).toBe('error');
			expect(nodeError(denied, 'Dispatch')?.message).toBe(
				'The API key lacks the scope "campaigns:danger" that this operation needs (403)',
			);
		});

		it('Account and Webhook Subscription: identity, create (secret redacted) and delete', async () => {
			const execution = await runOnce(
				actionWorkflow('e2e subscription', [
					{ name: 'Me', parameters: { resource: 'account', operation: 'getMe' } },
					{
						name: 'Create',
						parameters: {
							resource: 'webhookSubscription',
							operation: 'create',
							url: 'https://hooks.example.com/e2e',
							events: ['campaign.updated'],
						},
					},
					{
						name: 'Delete',
						parameters: {
							resource: 'webhookSubscription',
							operation: 'delete',
							subscriptionId: '={{ $json.id }}',
						},
					},
				]),
			);
			expect(execution.status).toBe('success');
			expect(nodeOutput(execution, 'Me')[0].json).toMatchObject({ key: { environment: 'test' } });
			expect(nodeOutput(execution, 'Create')[0].json.secret).toBe('[redacted]');
			expect(nodeOutput(execution, 'Delete')[0].json).toMatchObject({ deleted: true });
		});
	});

	describe('Svc Trigger in a real n8n over https', () => {
		let workflow: WorkflowRecord;
		const subscriptions = () => [...env.sandbox.state.store.subscriptions.values()];

		/** The trigger's event id in each of the workflow's executions, oldest first, once at least `atLeast` have finished. */
		async function eventsRun(workflowId: string, atLeast = 0): Promise<string[]> {
			const executions = await waitForExecutions(env.n8n, workflowId, atLeast, 30_000);
			return await Promise.all(
				executions.map(
					async (execution) =>
						nodeOutput(await getExecution(env.n8n, execution.id, true), 'On Lead Created')[0]?.json
							.id as string,
				),
			);
		}

		/**
		 * Proves that nothing sent to the workflow since it ran `before` (event ids, oldest first)
		 * started a run: a new lead's event, delivered after all of it and handled in order, is the
		 * only run since. A run that should not have started would be there by the time this one is.
		 */
		async function onlyANewLeadRunsAfter(
			workflowId: string,
			before: string[],
			email: string,
		): Promise<void> {
			const { event } = upsertLead(env.sandbox.state, { email });
			expect(await eventsRun(workflowId, before.length + 1)).toEqual([...before, event?.id]);
		}

		/**
		 * A new lead runs in exactly one execution with its signed event; the event's re-delivery is
		 * answered 200 and starts none. Under load the first delivery to a workflow that has not run
		 * yet can be answered after the sandbox's wait: its retry may then start an execution that
		 * stops at the trigger, which is a repeat, not a second run, and counts among those before.
		 */
		async function newLeadRunsOnce(
			workflowId: string,
			email: string,
			firstName: string,
		): Promise<void> {
			const { lead } = upsertLead(env.sandbox.state, { email, first_name: firstName });
			const eventOf = (execution: ExecutionRecord) =>
				nodeOutput(execution, 'On Lead Created')[0]?.json as
					({ id: string } & IDataObject) | undefined;
			await env.sandbox.state.waitForDeliveries();
			const executions = await settledExecutionsWithData(
				env.n8n,
				workflowId,
				(runs) => runsOfLead(runs, 'On Lead Created', lead.id).length > 0,
			);
			const ranTheLead = runsOfLead(executions, 'On Lead Created', lead.id);
			expect(ranTheLead).toHaveLength(1);
			expect(ranTheLead[0].status).toBe('success');
			const event = eventOf(ranTheLead[0]);
			expect(event).toMatchObject({
				type: 'lead.created',
				data: { id: lead.id },
				meta: { verified: true },
			});
			const eventId = String(event?.id);
			// The event ids of the runs so far, oldest first, as eventsRun gives them.
			const before = executions.map((execution) => eventOf(execution)?.id as string);

			env.sandbox.state.deliveries.redeliver(eventId);
			await env.sandbox.state.waitForDeliveries();
			const attempts = env.sandbox.state.deliveries.attempts({ eventId });
			expect(attempts.some((attempt) => !attempt.redelivery && attempt.ok)).toBe(true);
			const redeliveries = attempts.filter((attempt) => attempt.redelivery);
			expect(redeliveries).toHaveLength(1);
			expect(redeliveries[0].ok).toBe(true);
			await onlyANewLeadRunsAfter(workflowId, before, `after.${email}`);
		}

		it("activation creates exactly one subscription at n8n's https webhook URL", async () => {
			workflow = await importWorkflow(env.n8n, example('react-to-lead-created.json'));
			await activate(env.n8n, workflow.id);
			const [subscription] = subscriptions();
			expect(subscriptions()).toHaveLength(1);
			expect(subscription.url).toMatch(
				new RegExp(`^${env.n8n.webhookBaseUrl}/[0-9a-f-]+/webhook$`),
			);
			expect(subscription.events).toEqual(['lead.created']);
		});

		it('a new lead is delivered, signed, and starts exactly one execution; a re-delivery starts none', async () => {
			await newLeadRunsOnce(workflow.id, 'delivered@example.com', 'Delivered');
		});

		it('a forged delivery straight to the webhook URL gets 401 and starts nothing', async () => {
			const before = await eventsRun(workflow.id);
			const [subscription] = subscriptions();
			const body = JSON.stringify({
				id: 'evt_forged',
				type: 'lead.created',
				created_at: new Date().toISOString(),
				data: { id: 'lead_0001' },
			});
			const wrongSecret = `whsec_${Buffer.from('not the secret of this subscription').toString('base64')}`;
			const signature = new Webhook(wrongSecret).sign('evt_forged', new Date(), body);
			const answer = await env.n8n.fetch(subscription.url, {
				method: 'POST',
				body,
				headers: {
					'content-type': 'application/json',
					'webhook-id': 'evt_forged',
					'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
					'webhook-signature': signature,
				},
			});
			expect(answer.status).toBe(401);
			await onlyANewLeadRunsAfter(workflow.id, before, 'after.forged@example.com');
		});

		it('a catalogue of bad deliveries to n8n starts nothing; then a valid new event runs once', async () => {
			const [subscription] = subscriptions();
			const secret = String(subscription.secret);
			const now = () => Math.floor(Date.now() / 1000);
			const createdAt = new Date().toISOString();
			const event = (id: string, type = 'lead.created') =>
				JSON.stringify({ id, type, created_at: createdAt, data: { id: 'lead_0001' } });
			const signed = (id: string, body: string, timestamp = now()) => ({
				'content-type': 'application/json',
				'webhook-id': id,
				'webhook-timestamp': String(timestamp),
				'webhook-signature': new Webhook(secret).sign(id, new Date(timestamp * 1000), body),
			});
			const before = await eventsRun(workflow.id);
			const [firstEventId] = before;
			const big = JSON.stringify({
				id: 'evt_big',
				type: 'lead.created',
				created_at: new Date().toISOString(),
				data: { pad: 'x'.repeat(1100 * 1024) },
			});
			const catalogue: Array<
				[
					string,
					{ method?: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
					number[],
				]
			> = [
				[
					'missing signature',
					{
						headers: {
							'content-type': 'application/json',
							'webhook-id': 'evt_c1',
							'webhook-timestamp': String(now()),
						},
						body: event('evt_c1'),
					},
					[401],
				],
				[
					'truncated signature',
					{
						headers: { ...signed('evt_c2', event('evt_c2')), 'webhook-signature': 'v1,abc' },
						body: event('evt_c2'),
					},
					[401],
				],
				[
					'stale timestamp',
					{ headers: signed('evt_c3', event('evt_c3'), now() - 600), body: event('evt_c3') },
					[401],
				],
				[
					'future timestamp',
					{ headers: signed('evt_c4', event('evt_c4'), now() + 600), body: event('evt_c4') },
					[401],
				],
				[
					'tampered body',
					{
						headers: signed('evt_c5', event('evt_c5')),
						body: event('evt_c5').replace('lead_0001', 'lead_0009'),
					},
					[401],
				],
				[
					're-ordered JSON keys',
					{
						headers: signed('evt_c6', event('evt_c6')),
						body: JSON.stringify(JSON.parse(event('evt_c6')), ['type', 'id', 'created_at', 'data']),
					},
					[401],
				],
				// n8n's body parser answers these before the trigger runs (see README, Trigger).
				[
					'malformed JSON, validly signed',
					{ headers: signed('evt_c7', '{"id":"evt_c7",'), body: '{"id":"evt_c7",' },
					[422],
				],
				[
					'malformed JSON, unsigned',
					{ headers: { 'content-type': 'application/json' }, body: '{"id":"evt_c7b",' },
					[422],
				],
				['empty body', { headers: signed('evt_c8', ''), body: '' }, [400, 401]],
				[
					'text/plain content type',
					{
						headers: { ...signed('evt_c9', event('evt_c9')), 'content-type': 'text/plain' },
						body: event('evt_c9'),
					},
					[415],
				],
				['oversize body', { headers: signed('evt_big', big), body: big }, [413]],
				['wrong HTTP method', { method: 'GET', headers: {} }, [404, 405]],
				[
					'duplicate webhook-id, freshly signed',
					{ headers: signed(firstEventId, event(firstEventId)), body: event(firstEventId) },
					[200],
				],
				[
					'unsubscribed event type',
					{
						headers: signed('evt_c12', event('evt_c12', 'campaign.updated')),
						body: event('evt_c12', 'campaign.updated'),
					},
					[200],
				],
			];
			const unexpected: string[] = [];
			for (const [name, delivery, statuses] of catalogue) {
				const answer = await env.n8n.fetch(subscription.url, {
					method: delivery.method ?? 'POST',
					headers: delivery.headers,
					body: delivery.body,
				});
				if (!statuses.includes(answer.status))
					unexpected.push(`${name}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 120)}`);
			}
			expect(unexpected).toEqual([]);

			// Sent after the catalogue and handled in order: once it has run, any run the catalogue started would be there too.
			const valid = event('evt_valid_after_catalogue');
			const answer = await env.n8n.fetch(subscription.url, {
				method: 'POST',
				headers: signed('evt_valid_after_catalogue', valid),
				body: valid,
			});
			expect(answer.status).toBe(200);
			expect(await eventsRun(workflow.id, before.length + 1)).toEqual([
				...before,
				'evt_valid_after_catalogue',
			]);
		});

		it('deactivation deletes the subscription on the service', async () => {
			await deactivate(env.n8n, workflow.id);
			await until('subscription deleted', () => subscriptions().length === 0, {
				timeoutMs: 15_000,
			});
		});

		it('a workflow saved with the trigger at version 1 still runs once per new lead', async () => {
			const saved = example('react-to-lead-created.json');
			const trigger = saved.nodes.find((node) => node.name === 'On Lead Created');
			expect(trigger?.typeVersion).toBeGreaterThan(1);
			const atVersion1 = await importWorkflow(env.n8n, {
				...saved,
				nodes: saved.nodes.map((node) => (node === trigger ? { ...node, typeVersion: 1 } : node)),
			});
			await activate(env.n8n, atVersion1.id);
			try {
				await newLeadRunsOnce(atVersion1.id, 'version-one@example.com', 'One');
			} finally {
				await deactivate(env.n8n, atVersion1.id);
			}
			await until('subscription deleted', () => subscriptions().length === 0, {
				timeoutMs: 15_000,
			});
		});

		it("beside a Remove Duplicates node that saved the workflow's record in another mode, the trigger keeps the event and says what to change; once that record is cleared, a Retry runs the event once", async () => {
			const saved = example('react-to-lead-created.json');
			const trigger = saved.nodes.find((node) => node.name === 'On Lead Created');
			if (!trigger) throw new Error('the example has no On Lead Created');
			const removeDuplicates = (name: string, y: number, parameters: INodeParameters) => ({
				name,
				type: 'n8n-nodes-base.removeDuplicates',
				typeVersion: 2,
				position: [240, y] as [number, number],
				parameters: { ...parameters, options: { scope: 'workflow' } },
			});
			const beside = await importWorkflow(env.n8n, {
				...saved,
				name: 'Svc Trigger beside Remove Duplicates at scope Workflow',
				nodes: [
					{ ...trigger, webhookId: randomUUID() },
					{
						name: 'By Hand',
						type: 'n8n-nodes-base.manualTrigger',
						typeVersion: 1,
						position: [0, 200],
						parameters: {},
					},
					removeDuplicates('Keep Highest', 200, {
						operation: 'removeItemsSeenInPreviousExecutions',
						logic: 'removeItemsUpToStoredIncrementalKey',
						incrementalDedupeValue: '={{ 1 }}',
					}),
					// A workflow has one Manual Trigger at most: the clear gets a trigger of its own.
					{
						name: 'Monthly',
						type: 'n8n-nodes-base.scheduleTrigger',
						typeVersion: 1.2,
						position: [0, 400],
						parameters: { rule: { interval: [{ field: 'months' }] } },
					},
					removeDuplicates('Forget History', 400, {
						operation: 'clearDeduplicationHistory',
						mode: 'cleanDatabase',
					}),
				],
				connections: {
					'By Hand': { main: [[{ node: 'Keep Highest', type: 'main', index: 0 }]] },
					Monthly: { main: [[{ node: 'Forget History', type: 'main', index: 0 }]] },
				},
			});
			// Remove Duplicates saves the workflow's record in its 'latestIncrementalKey' mode.
			expect((await executeWorkflow(env.n8n, beside.id)).status).toBe('success');
			await activate(env.n8n, beside.id);
			try {
				const { lead, event } = upsertLead(env.sandbox.state, {
					email: 'beside-dedupe@example.com',
				});
				await env.sandbox.state.waitForDeliveries();
				const [kept] = await settledExecutionsWithData(env.n8n, beside.id, (runs) =>
					runs.some((run) => run.mode === 'webhook'),
				).then((runs) => runs.filter((run) => run.mode === 'webhook'));
				expect(kept.status).toBe('error');
				expect(nodeError(kept, 'On Lead Created')?.description).toMatch(
					/Remove Duplicates node that has or had Scope set to Workflow.*Set that node's Scope to Node \(if no node has Workflow now, skip this\), clear the workflow's record once \(Remove Duplicates, Clear Deduplication History, Scope: Workflow\), then retry this execution/,
				);
				expect(
					env.sandbox.state.deliveries
						.attempts({ eventId: String(event?.id) })
						.some((attempt) => attempt.ok),
				).toBe(true);

				// As the error says: the record cleared, then a Retry.
				expect((await executeWorkflow(env.n8n, beside.id, { triggerNode: 'Monthly' })).status).toBe(
					'success',
				);
				await retryExecution(env.n8n, kept.id);
				const runs = await settledExecutionsWithData(
					env.n8n,
					beside.id,
					(all) => runsOfLead(all, 'On Lead Created', lead.id).length > 0,
				);
				const ran = runsOfLead(runs, 'On Lead Created', lead.id);
				expect(ran).toHaveLength(1);
				expect(ran[0]).toMatchObject({ status: 'success', retryOf: kept.id });
			} finally {
				await deactivate(env.n8n, beside.id);
			}
		});
	});

	describe('Svc Trigger in batches (Events per Execution: Many)', () => {
		/** The example with Svc Trigger in batches of 100, published. */
		async function publishedInBatches(): Promise<WorkflowRecord> {
			const workflow = await importWorkflow(env.n8n, example('react-to-new-leads-in-batches.json'));
			await activate(env.n8n, workflow.id);
			return workflow;
		}

		/** Each finished execution's events, as the trigger passed them on. */
		async function batchesRun(workflowId: string): Promise<string[][]> {
			const executions = await listExecutions(env.n8n, workflowId, { includeData: true });
			return executions.map((execution) =>
				nodeOutput(execution, 'On Lead Created').map((item) => item.json.id as string),
			);
		}

		it('a lone lead runs in an execution of its own; a burst of 300 runs each event once, in a few executions, every event answered 2xx', async () => {
			const workflow = await publishedInBatches();
			try {
				const { event } = upsertLead(env.sandbox.state, { email: 'lone.batch@example.com' });
				const [lone] = await waitForExecutions(env.n8n, workflow.id, 1, 20_000, {
					includeData: true,
				});
				expect(nodeOutput(lone, 'On Lead Created').map((item) => item.json.id)).toEqual([
					event?.id,
				]);
				expect(nodeOutput(lone, 'Get Lead')).toHaveLength(1);

				const burst = await fireBurst(env.sandbox.state, {
					deliveries: 300,
					repeats: 0,
					concurrency: 16,
				});
				const sent = burst.events.map((burstEvent) => burstEvent.id);
				await until(
					'every event of the burst ran',
					async () => {
						const ran = new Set((await batchesRun(workflow.id)).flat());
						return sent.every((id) => ran.has(id));
					},
					{ timeoutMs: 240_000, everyMs: 1_000 },
				);
				// Under load a delivery may be answered 503, or not within the service's wait, on each
				// of the sandbox's three tries, while a batch ran its event: the service goes on
				// sending it, and every event is answered 2xx in the end, none run again.
				await sendUntilAnswered(env.sandbox.state, sent);
				const batches = await batchesRun(workflow.id);
				const ran = batches.flat();
				expect(ran).toHaveLength(new Set(ran).size);
				expect(ran.sort()).toEqual([event?.id, ...sent].sort());
				// One for the lone lead, then ⌈300 / 100⌉ batches, with room for a few small ones.
				expect(batches.length).toBeLessThanOrEqual(1 + 3 + 10);
			} finally {
				await deactivate(env.n8n, workflow.id);
				await until(
					'subscription deleted',
					() => env.sandbox.state.store.subscriptions.size === 0,
					{
						timeoutMs: 15_000,
					},
				);
			}
		}, 360_000);
	});

	describe('example workflows', () => {
		it('dispatch approved campaigns: only the approved one is dispatched, and the note, the filter and Not Dispatched give one reason', async () => {
			// An earlier test dispatched cmp_0002, which left it "sending"; approve it again.
			touchCampaign(env.sandbox.state, 'cmp_0002', { status: 'approved' });
			touchCampaign(env.sandbox.state, 'cmp_0003', { status: 'active' });
			const workflow = example('dispatch-approved-campaign.json');
			const note = workflow.nodes.find((node) => node.name === 'About This Example')?.parameters
				.content as string;
			const filter = JSON.stringify(workflow.nodes.find((node) => node.name === 'Approved?'));
			// The filter passes the status the note says this workflow sends, and no other.
			expect(note).toMatch(/sends each \*\*approved\*\* one/);
			expect(filter).toContain('"rightValue":"approved"');
			expect(filter).not.toMatch(/"rightValue":"(active|sending)"/);
			// What the note says of an active campaign is what Not Dispatched says of it.
			expect(note).toMatch(/An \*active\* or \*sending\* one is already going out/);
			const before = env.sandbox.state.stats.snapshot().dispatches;
			const execution = await runOnce(workflow);
			expect(execution.status).toBe('success');
			expect(nodeOutput(execution, 'Dispatch').map((item) => item.json.campaign_id)).toEqual([
				'cmp_0002',
			]);
			const reasons = Object.fromEntries(
				nodeOutput(execution, 'Not Dispatched').map((item): [string, unknown] => [
					typeof item.json.campaign === 'string' ? item.json.campaign : '',
					item.json.reason,
				]),
			);
			expect(reasons).toMatchObject({
				'Spring welcome series (cmp_0001)':
					'Its status is draft: nobody has approved it yet. This workflow dispatches only approved campaigns.',
				'Reactivation: 90 days quiet (cmp_0003)':
					'Its status is active: it is already going out, and sending it to its whole audience again would reach people twice. This workflow dispatches only approved campaigns, which have not gone out yet.',
			});
			expect(Object.keys(reasons)).not.toContain('Webinar follow-up (cmp_0002)');
			expect(env.sandbox.state.stats.snapshot().dispatches).toBe(before + 1);

			// A second run sends nothing and says why.
			const again = await runOnce(example('dispatch-approved-campaign.json'));
			expect(again.status).toBe('success');
			expect(nodeOutput(again, 'Dispatch')).toEqual([]);
			expect(
				nodeOutput(again, 'Not Dispatched').find(
					(item) => item.json.campaign === 'Webinar follow-up (cmp_0002)',
				)?.json.reason,
			).toBe('Already dispatched (its status is sending), so it was not sent again.');
			expect(env.sandbox.state.stats.snapshot().dispatches).toBe(before + 1);
		});

		it("lead capture from a form records consent, and a second post keeps the consent's first time, in UTC, as its note says", async () => {
			const workflow = await importWorkflow(env.n8n, example('lead-capture-with-consent.json'));
			await activate(env.n8n, workflow.id);
			const post = async () =>
				await env.n8n.fetch(`${env.n8n.webhookBaseUrl}/svc-lead-capture`, {
					method: 'POST',
					body: JSON.stringify({
						email: 'form@example.com',
						first_name: 'Form',
						marketing_consent: 'yes',
					}),
					headers: { 'content-type': 'application/json' },
				});
			const consentNow = () =>
				env.sandbox.state.store.findLead('email', 'form@example.com')?.custom_fields.consent as
					Record<string, string> | undefined;
			expect((await post()).status).toBe(200);
			expect(
				env.sandbox.state.store.findLead('email', 'form@example.com')?.custom_fields,
			).toMatchObject({
				form: 'signup',
				consent: { status: 'granted', channel: 'email', source: 'signup-form' },
			});
			const first = consentNow()?.recorded_at;
			expect(first).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
			expect((await post()).status).toBe(200);
			expect(consentNow()?.recorded_at).toBe(first);
			await deactivate(env.n8n, workflow.id);
		});

		it('a hot lead is handed to the assistant; a cold one is not', async () => {
			const workflow = await importWorkflow(env.n8n, example('hand-hot-lead-to-assistant.json'));
			await activate(env.n8n, workflow.id);
			const takeoversBefore = env.sandbox.state.stats.snapshot().takeovers;
			upsertLead(env.sandbox.state, {
				email: 'hot@example.com',
				custom_fields: { score: 92, consent: { status: 'granted' } },
			});
			upsertLead(env.sandbox.state, { email: 'cold@example.com', custom_fields: { score: 10 } });
			await waitForExecutions(env.n8n, workflow.id, 2, 20_000);
			expect(env.sandbox.state.stats.snapshot().takeovers).toBe(takeoversBefore + 1);
			await deactivate(env.n8n, workflow.id);
		});
	});

	describe('secret hygiene', () => {
		it("the API key and signing secrets appear nowhere in n8n's debug log, stored executions or public-API answers", async () => {
			// Every signing secret the sandbox issued, deleted subscriptions' too.
			const secrets = [
				FULL_KEY,
				NO_SENSITIVE_KEY,
				...env.sandbox.state.store.issuedSecrets.map((secret) => secret.slice('whsec_'.length)),
			];
			expect(env.sandbox.state.store.issuedSecrets.length).toBeGreaterThanOrEqual(3);
			const log = await env.n8n.log();
			expect(log.length).toBeGreaterThan(10_000);
			const workflows = await env.n8n.api<{ data: Array<{ id: string }> }>(
				'GET',
				'/workflows?limit=250',
			);
			// The public API's workflow answers carry static data too.
			let stored = JSON.stringify(workflows.body);
			for (const { id } of workflows.body.data) {
				for (const execution of await listExecutions(env.n8n, id, { includeData: true }))
					stored += JSON.stringify(execution);
			}
			expect(stored.length).toBeGreaterThan(1000);
			for (const secret of secrets) {
				expect(log).not.toContain(secret);
				expect(stored).not.toContain(secret);
			}
		});
	});

	describe('the workflow users build without this package (examples/receive-signed-events-without-this-package.json)', () => {
		// After the secret-hygiene check: this workflow keeps the signing secret in its Code node, where every execution stores it.
		it('a signed event runs to the end once; its repeat stops at Remove Duplicates; a forged one fails the signature check', async () => {
			const path = 'svc-events-peer';
			const subscription = createSubscription(env.sandbox.state, {
				url: `${env.n8n.webhookBaseUrl}/${path}`,
				events: ['lead.created'],
			});
			const secret = String(env.sandbox.state.store.subscriptions.get(subscription.id)?.secret);
			const stored = await importWorkflow(env.n8n, peerWorkflow(path, secret));
			await activate(env.n8n, stored.id);
			try {
				const { lead } = upsertLead(env.sandbox.state, { email: 'peer@example.com' });
				const [first] = await waitForExecutions(env.n8n, stored.id, 1, 20_000, {
					includeData: true,
				});
				expect(first.status).toBe('success');
				const event = nodeOutput(first, PEER_END_NODE)[0]?.json as
					({ id: string } & IDataObject) | undefined;
				expect(event).toMatchObject({ type: 'lead.created', data: { id: lead.id } });

				env.sandbox.state.deliveries.redeliver(event?.id ?? '');
				await env.sandbox.state.waitForDeliveries();
				const repeat = (
					await waitForExecutions(env.n8n, stored.id, 2, 20_000, { includeData: true })
				)[1];
				expect(repeat.status).toBe('success');
				expect(nodeOutput(repeat, PEER_END_NODE)).toHaveLength(0);

				// The Webhook node answers before anything checks the signature: a forgery gets 200 and an execution.
				const body = JSON.stringify({
					id: 'evt_peer_forged',
					type: 'lead.created',
					created_at: new Date().toISOString(),
					data: { id: lead.id },
				});
				const forged = new Webhook(
					`whsec_${Buffer.from('not the secret of this subscription').toString('base64')}`,
				).sign('evt_peer_forged', new Date(), body);
				const answer = await env.n8n.fetch(subscription.url, {
					method: 'POST',
					body,
					headers: {
						'content-type': 'application/json',
						'webhook-id': 'evt_peer_forged',
						'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
						'webhook-signature': forged,
					},
				});
				expect(answer.status).toBe(200);
				const third = (
					await waitForExecutions(env.n8n, stored.id, 3, 20_000, { includeData: true })
				)[2];
				expect(third.status).toBe('error');
				expect(nodeError(third, 'Verify Signature')).toMatchObject({
					message: expect.stringMatching(/signature/i) as unknown,
				});
			} finally {
				await deactivate(env.n8n, stored.id);
				env.sandbox.state.store.subscriptions.delete(subscription.id);
			}
		});
	});
});
