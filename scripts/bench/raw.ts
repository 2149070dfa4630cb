/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- tooling that runs in Node.js beside n8n, never inside it */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

import type { RawJob, RawResult } from './raw-client';

export interface RawClient {
	pid: number;
	run(job: Omit<RawJob, 'kind' | 'jobId'>): Promise<RawResult>;
	stop(): Promise<void>;
}

type ChildMessage = RawResult | { kind: 'ready' };

/** Forks raw-client.ts (through tsx) and waits until it says it is ready. */
export async function startRawClient(): Promise<RawClient> {
	const child: ChildProcess = fork(join(__dirname, 'raw-client.ts'), [], {
		execArgv: ['--import', 'tsx'],
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	const pending = new Map<number, (result: RawResult) => void>();
	let nextJob = 1;
	await new Promise<void>((resolve, reject) => {
		child.once('error', reject);
		child.once('exit', (code) => reject(new Error(`raw client exited early (code ${code})`)));
		child.on('message', (message: ChildMessage) => {
			if (message.kind === 'ready') resolve();
			else pending.get(message.jobId)?.(message);
		});
	});
	child.removeAllListeners('exit');
	if (child.pid === undefined) throw new Error('raw client has no pid');
	return {
		pid: child.pid,
		run: async (job) =>
			await new Promise<RawResult>((resolve) => {
				const jobId = nextJob++;
				pending.set(jobId, (result) => {
					pending.delete(jobId);
					resolve(result);
				});
				child.send({ ...job, kind: 'job', jobId } satisfies RawJob);
			}),
		stop: async () => {
			if (child.exitCode !== null || child.signalCode !== null) return;
			await new Promise<void>((resolve) => {
				child.once('exit', () => resolve());
				child.kill('SIGTERM');
			});
		},
	};
}
