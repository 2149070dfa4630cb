/* eslint-disable @n8n/community-nodes/require-node-api-error -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * n8n's own human review in front of the Svc tool: an AI Agent (scripted model) whose Campaign
 * Dispatch tool is wired through n8n's Email Send human-review tool. The reviewer's mailbox is a
 * local SMTP server; the test approves or refuses through the links n8n put in the email, as the
 * person would. n8n 2.x generates human-review tools; 1.123 has none (asserted).
 */
import { scriptedModelCredential } from '../../harness/agent-example';
import type { Environment } from '../../harness/environment';
import { startEnvironment } from '../../harness/environment';
import type { CredentialRef, WorkflowInput, WorkflowRecord } from '../../harness/n8n/api';
import type { ExecutionRecord } from '../../harness/n8n/executions';
import { activate, deactivate, importCredential, importWorkflow } from '../../harness/n8n/api';
import { getExecution, listExecutions } from '../../harness/n8n/executions';
import { runtimeVersions } from '../../harness/runtime-versions';
import type { ScriptedModel } from '../../harness/scripted-model';
import {
	answer,
	callTool,
	lastToolResult,
	startScriptedModel,
	toolResults,
} from '../../harness/scripted-model';
import type { SmtpSink } from '../../harness/smtp-sink';
import { mailboxCredential, startSmtpSink } from '../../harness/smtp-sink';
import { reviewedDispatchAgent } from '../../harness/svc-tools';
import { logTail } from '../../harness/log-tail';
import { until } from '../../harness/wait';
import { touchCampaign } from '../../sandbox/operations';

jest.setTimeout(180_000);

const DISPATCH_ROUTE = 'POST /v1/campaigns/{campaign_id}/dispatch';
/** The reviewer opens the email's link in a browser; n8n answers link checkers and bots with nothing. */
const BROWSER = {
	headers: {
		'user-agent':
			'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
	},
};

describe.each(runtimeVersions('SVC_E2E_N8N'))(
	'n8n %s: human review in front of Campaign Dispatch',
	(version) => {
		let env: Environment;
		let model: ScriptedModel;
		let mailbox: SmtpSink;
		let modelCredential: CredentialRef;
		let smtp: CredentialRef;

		beforeAll(async () => {
			model = await startScriptedModel();
			mailbox = await startSmtpSink();
			env = await startEnvironment({ version, shared: true });
			modelCredential = await importCredential(env.n8n, scriptedModelCredential(model.url));
			smtp = await importCredential(env.n8n, mailboxCredential(mailbox.port));
		}, 15 * 60_000);
		afterAll(async () => {
			await env?.stop();
			await mailbox?.close();
			await model?.close();
		});

		const dispatches = () =>
			env.sandbox.state.requests.all().filter((request) => request.route === DISPATCH_ROUTE);

		const reviewedAgent = (path: string): WorkflowInput =>
			reviewedDispatchAgent({
				name: `human review ${version}`,
				path,
				version,
				modelId: model.modelId,
				modelCredential,
				svcCredential: env.credential,
				smtpCredential: smtp,
				reviewer: 'reviewer@example.com',
			});

		if (version === 'v1') {
			it('n8n 1.123 cannot publish it: it has no human-review tools (they come with n8n 2.x)', async () => {
				const stored = await importWorkflow(env.n8n, reviewedAgent(`svc-review-${version}`));
				await expect(activate(env.n8n, stored.id)).rejects.toThrow(
					/Unrecognized node type: n8n-nodes-base.emailSendHitl/,
				);
			});
			return;
		}

		describe('Dispatch behind n8n’s Email Send human review', () => {
			const path = `svc-review-${version}`;
			let workflow: WorkflowRecord;

			beforeAll(async () => {
				workflow = await importWorkflow(env.n8n, reviewedAgent(path));
				await activate(env.n8n, workflow.id);
			});
			afterAll(async () => {
				if (workflow) await deactivate(env.n8n, workflow.id);
			});

			/** Starts the agent, waits until its run waits for the reviewer, and returns the email's links. */
			async function askAndAwaitReview(): Promise<{
				execution: ExecutionRecord;
				approve: string;
				refuse: string;
			}> {
				touchCampaign(env.sandbox.state, 'cmp_0002', { status: 'approved' });
				env.sandbox.state.requests.clear();
				model.clear();
				model.play([
					// Behind human review, n8n offers the tool's own arguments under toolParameters.
					callTool('Dispatch_Campaign', {
						toolParameters: { campaignId: 'cmp_0002', leadIds: 'lead_0001' },
						hitlParameters: {},
					}),
					answer((request) => `Dispatch result: ${lastToolResult(request)}`),
				]);
				const mails = mailbox.messages().length;
				const before = (await listExecutions(env.n8n, workflow.id)).length;
				const started = await env.n8n.fetch(`${env.n8n.webhookBaseUrl}/${path}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ prompt: 'Send the webinar follow-up to lead_0001.' }),
				});
				expect(started.status).toBe(200);
				await until('the review email arrived', () => mailbox.messages().length > mails, {
					timeoutMs: 60_000,
				});
				let execution: ExecutionRecord | undefined;
				await until(
					'the run waits for the reviewer',
					async () => {
						const executions = await listExecutions(env.n8n, workflow.id);
						execution = executions.length > before ? executions[0] : undefined;
						return execution?.status === 'waiting';
					},
					{ timeoutMs: 60_000 },
				);
				const mail = mailbox.messages()[mails];
				const links = [...mail.text.matchAll(/href="([^"]+)"/g)].map((match) => match[1]);
				const approve = links.find((link) => link.includes('approved=true'));
				const refuse = links.find((link) => link.includes('approved=false'));
				if (!execution || !approve || !refuse)
					throw new Error(`no approve and refuse links in the email:\n${mail.text}`);
				expect(mail.to).toEqual(['reviewer@example.com']);
				expect(mail.text).toContain('Dispatch_Campaign');
				return {
					execution,
					approve: approve.replace(/&amp;/g, '&'),
					refuse: refuse.replace(/&amp;/g, '&'),
				};
			}

			/** The run once it has ended; if it does not, the error says where it stands. */
			async function ended(execution: ExecutionRecord): Promise<ExecutionRecord> {
				try {
					await until(
						'the run ended',
						async () =>
							['success', 'error'].includes(
								(await getExecution(env.n8n, execution.id, false)).status,
							),
						{ timeoutMs: 60_000 },
					);
				} catch (error) {
					const now = await getExecution(env.n8n, execution.id, true);
					throw new Error(
						`${(error as Error).message}: status ${now.status}, nodes run ${Object.keys(now.data?.resultData.runData ?? {}).join(', ')}, error ${now.data?.resultData.error?.message ?? 'none'}; ${model.chats().length} model calls\n${await logTail(env.n8n.logFile, 40)}`,
					);
				}
				return await getExecution(env.n8n, execution.id, true);
			}

			it('nothing is sent before the reviewer answers; after approval the dispatch runs exactly once and the agent answers with it', async () => {
				const review = await askAndAwaitReview();
				expect(dispatches()).toEqual([]);
				const approved = await env.n8n.fetch(review.approve, BROWSER);
				expect(approved.status).toBe(200);
				expect((await ended(review.execution)).status).toBe('success');
				expect(dispatches()).toHaveLength(1);
				expect(dispatches()[0].body).toEqual({ lead_ids: ['lead_0001'] });
				const chats = model.chats();
				expect(chats).toHaveLength(2);
				expect(
					toolResults(chats[1].request)
						.map((result) => result.content)
						.join('\n'),
				).toMatch(/"status":"queued"/);
				// The link is spent: opening it again sends nothing more.
				await env.n8n.fetch(review.approve, BROWSER);
				expect(dispatches()).toHaveLength(1);
			});

			it('after a refusal nothing is sent, and the model is told that the person rejected the call', async () => {
				const review = await askAndAwaitReview();
				const refused = await env.n8n.fetch(review.refuse, BROWSER);
				expect(refused.status).toBe(200);
				expect((await ended(review.execution)).status).toBe('success');
				expect(dispatches()).toEqual([]);
				const chats = model.chats();
				expect(chats).toHaveLength(2);
				expect(lastToolResult(chats[1].request)).toMatch(/rejected/i);
			});
		});
	},
);
