/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * n8n's community-package installer in queue mode: the package installed through the main
 * reaches the workers and the webhook processor that are running, without a restart, and a worker
 * started later with N8N_REINSTALL_MISSING_PACKAGES=true installs it itself.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { activate, deactivate } from '../../harness/n8n/api';
import type { N8nRoleProcess } from '../../harness/n8n/instance';
import {
	importReceiverWorkflow,
	ranPastTrigger,
	SVC_TRIGGER_RECEIVER,
} from '../../harness/crash-receivers';
import type { LocalRegistry } from '../../harness/npm-registry';
import { startLocalRegistry } from '../../harness/npm-registry';
import { packedTarball } from '../../harness/pack';
import { runIdentity } from '../../harness/identity-run';
import { packageFolder } from '../../harness/n8n/user-folder';
import { PACKAGE_NAME } from '../../harness/project';
import type { QueueEnvironment } from '../../harness/queue-environment';
import { startQueueEnvironment } from '../../harness/queue-environment';
import { runtimeVersions } from '../../harness/runtime-versions';
import { until } from '../../harness/wait';
import { upsertLead } from '../../sandbox/operations';

jest.setTimeout(240_000);

describe.each(runtimeVersions('SVC_QUEUE_N8N'))(
	"n8n %s in queue mode: the package installed through the main's community-package installer",
	(version) => {
		let registry: LocalRegistry;
		let queue: QueueEnvironment;
		let published: string;

		beforeAll(async () => {
			registry = await startLocalRegistry();
			published = (await registry.publish(await packedTarball())).version;
			// A topology of its own: n8n's installer installs, updates and removes the package in it.
			queue = await startQueueEnvironment(version, {
				workers: 1,
				webhookProcessors: 1,
				installFrom: { registry, version: published },
			});
		}, 15 * 60_000);
		afterAll(async () => {
			await queue?.stop();
			await registry?.close();
		});

		const packageIn = (process: N8nRoleProcess) =>
			join(packageFolder(process.userFolder), 'package.json');

		/** The identity workflow's run: where it ran is in the workers' logs. */
		async function identityRun(): Promise<{ executionId: string; status: string; error?: string }> {
			const execution = await runIdentity(queue.topology.main, queue.credential);
			return {
				executionId: execution.id,
				status: execution.status,
				error: execution.data?.resultData.error?.message,
			};
		}

		const ran = async (worker: N8nRoleProcess, executionId: string) =>
			(await worker.log()).includes(`Worker started execution ${executionId} (`);

		it('the running worker and webhook processor install it themselves, without a restart: a delivery at the processor runs once on the worker', async () => {
			const { topology, sandbox } = queue;
			expect(queue.installed).toMatchObject({ installedVersion: published });
			const [worker] = topology.workers;
			const [processor] = topology.webhookProcessors;
			const pids = [worker.pid, processor.pid];
			// What each logs once it has installed and loaded it (n8n 1.123 and 2.41).
			const installedLine = `Community package installed: ${PACKAGE_NAME}`;
			await until(
				'the worker and the webhook processor installed the package',
				async () =>
					(await worker.log()).includes(installedLine) &&
					(await processor.log()).includes(installedLine),
				{ timeoutMs: 60_000 },
			);
			expect(existsSync(packageIn(worker)) && existsSync(packageIn(processor))).toBe(true);

			const identity = await identityRun();
			expect(identity).toMatchObject({ status: 'success', error: undefined });
			expect(await ran(worker, identity.executionId)).toBe(true);

			const receiver = await importReceiverWorkflow(
				topology.main,
				'queue installer: Svc Trigger',
				SVC_TRIGGER_RECEIVER,
				{ sandboxUrl: sandbox.url, credential: queue.credential },
			);
			await activate(topology.main, receiver.id);
			const eventIds: string[] = [];
			for (const email of ['queue.install.1@example.com', 'queue.install.2@example.com']) {
				const { event } = upsertLead(sandbox.state, { email });
				eventIds.push(String(event?.id));
			}
			await sandbox.state.waitForDeliveries();
			for (const eventId of eventIds) {
				const attempts = sandbox.state.deliveries.attempts({ eventId });
				expect(attempts.some((attempt) => attempt.ok)).toBe(true);
				expect(attempts.every((attempt) => attempt.url.startsWith(processor.baseUrl))).toBe(true);
			}
			await until(
				'both events ran past the trigger',
				() => eventIds.every((id) => ranPastTrigger(sandbox.state).has(id)),
				{ timeoutMs: 60_000 },
			);
			expect(eventIds.map((id) => ranPastTrigger(sandbox.state).get(id))).toEqual([1, 1]);
			expect([worker.pid, processor.pid]).toEqual(pids);
			await deactivate(topology.main, receiver.id);
		});

		it('a worker started afterwards with N8N_REINSTALL_MISSING_PACKAGES=true installs it at start and runs it; one started without it has none', async () => {
			const { topology } = queue;
			const [late, bare] = await Promise.all([
				topology.main.startProcess('worker', {
					name: 'worker-late',
					env: { N8N_REINSTALL_MISSING_PACKAGES: 'true' },
				}),
				topology.main.startProcess('worker', { name: 'worker-late-without' }),
			]);
			try {
				expect(existsSync(packageIn(late))).toBe(true);
				// Without the setting a process started later stays without it.
				expect(existsSync(packageIn(bare))).toBe(false);
				await bare.stop();
				// The only worker left, so the next run is its. The file's last test: the first worker
				// stays stopped (afterAll stops the rest).
				await topology.workers[0].stop();
				const identity = await identityRun();
				expect(identity).toMatchObject({ status: 'success', error: undefined });
				expect(await ran(late, identity.executionId)).toBe(true);
			} finally {
				await Promise.all([late.stop(), bare.stop()]);
			}
		});
	},
);
