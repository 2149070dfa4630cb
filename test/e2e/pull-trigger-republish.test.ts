/**
 * Svc Pull Trigger published, unpublished and published again in a real n8n: it reads on where it
 * stopped, so the events from before cost no second execution.
 * A file of its own (the rest of the pull trigger is in test/e2e/pull-trigger.test.ts): each case
 * waits on n8n's minute polls, and apart the suite's workers run them beside the other files.
 * Figures go to .tmp/pull-republish-figures.json.
 *
 * @startsFirst: n8n's minute polls make it one of the suite's longest files, yet a small one, which
 * jest on a fresh clone would start last (harness/jest/test-order.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import {
	emitLeadsCreated,
	importReceiverWorkflow,
	pullReceiverInBatches,
	stoppedAtTrigger,
	SVC_PULL_TRIGGER_RECEIVER,
	TWO_POLLS_MS,
	untilRanPastTrigger,
} from '../../harness/crash-receivers';
import { startEnvironment } from '../../harness/environment';
import { mergeFigures } from '../../harness/figures';
import { activate, deactivate } from '../../harness/n8n/api';
import { listExecutions, settledExecutions } from '../../harness/n8n/executions';
import { runtimeVersions } from '../../harness/runtime-versions';
import { until } from '../../harness/wait';

jest.setTimeout(15 * 60_000);

const figures: Record<string, IDataObject> = {};

afterAll(async () => {
	// Each major may run in its own jest process: the other's figures are kept.
	await mergeFigures('pull-republish-figures.json', figures);
});

describe.each(runtimeVersions('SVC_E2E_N8N'))(
	'n8n %s: Svc Pull Trigger published again',
	(version) => {
		// The two cases side by side, each with a sandbox of its own: each waits on n8n's minute polls.
		it.concurrent.each([
			['one per event', SVC_PULL_TRIGGER_RECEIVER, 3, 5],
			['in batches of 50', pullReceiverInBatches(50), 1, 1],
		])(
			'%s: published, unpublished and published again, it reads on where it stopped: the new events cost their executions, and none stops at the trigger',
			async (mode, receiver, firstExecutions, againExecutions) => {
				// The n8n the suite's files share: the pull trigger needs no public URL, so its https one
				// serves as a plain http one would (which test/e2e/pull-trigger.test.ts starts).
				const env = await startEnvironment({ version, shared: true });
				try {
					const emit = (count: number): string[] => emitLeadsCreated(env.sandbox.state, count);
					const waitUntilRan = async (ids: string[]): Promise<number[]> =>
						await untilRanPastTrigger(env.sandbox.state, ids);
					const { id } = await importReceiverWorkflow(
						env.n8n,
						`Svc: new leads, published again (${mode})`,
						receiver,
						{ sandboxUrl: env.sandbox.url, credential: env.credential },
					);
					// Events after publishing run at n8n's minute polls, whose position n8n stores only with the
					// executions they start: before they moved it.
					await activate(env.n8n, id);
					const first = emit(3);
					expect(await waitUntilRan(first)).toEqual([1, 1, 1]);
					const before = await settledExecutions(env.n8n, id);
					await deactivate(env.n8n, id);
					const meanwhile = emit(5);
					await activate(env.n8n, id);
					expect(await waitUntilRan(meanwhile)).toEqual([1, 1, 1, 1, 1]);
					// The publish's poll read them; the next poll, a minute on, must not read the first ones again.
					const reads = env.sandbox.state.requests
						.all()
						.filter((request) => request.path === '/v1/events').length;
					await until(
						"n8n's next poll",
						() =>
							env.sandbox.state.requests.all().filter((request) => request.path === '/v1/events')
								.length > reads,
						{ timeoutMs: TWO_POLLS_MS, everyMs: 500 },
					);
					const after = await settledExecutions(env.n8n, id);
					await deactivate(env.n8n, id);
					const withData = await listExecutions(env.n8n, id, { includeData: true });
					figures[`${version} ${mode}`] = {
						firstExecutions: before.length,
						againExecutions: after.length - before.length,
						stoppedAtTrigger: stoppedAtTrigger(withData).length,
					};
					expect(before).toHaveLength(firstExecutions);
					expect(after.length - before.length).toBe(againExecutions);
					expect(stoppedAtTrigger(withData)).toEqual([]);
				} finally {
					await env.stop();
				}
			},
		);
	},
);
