/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- tooling that runs in Node.js beside n8n, never inside it */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { childEnv } from '../../harness/child-env';
import { runCommand } from '../../harness/commands';
import { until } from '../../harness/wait';

const ROOT = join(__dirname, '..', '..');
const EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'exit'] as const;

function listenerCounts(): number[] {
	return EVENTS.map((event) => process.listenerCount(event));
}

/** Whether `pid` still runs; a zombie (killed, not reaped yet by whoever adopted it) does not. */
async function running(pid: number): Promise<boolean> {
	const { stdout } = await runCommand('ps', ['-o', 'stat=', '-p', String(pid)]);
	return stdout.trim() !== '' && !stdout.trim().startsWith('Z');
}

describe('harness/process-groups', () => {
	it('installs no process-wide listener when imported', async () => {
		const before = listenerCounts();
		await jest.isolateModulesAsync(async () => {
			await import('../../harness/process-groups');
		});
		expect(listenerCounts()).toEqual(before);
	});

	it('once a group is spawned, SIGINT kills the group, then ends the process as SIGINT would', async () => {
		const script = [
			"const { spawnGroup } = require('./harness/process-groups');",
			"const group = spawnGroup('sleep', ['60'], { env: process.env, logFile: '/dev/null' });",
			'console.log(group.pid);',
			'setInterval(() => {}, 1000);',
		].join('\n');
		const child = spawn(process.execPath, ['--require', 'tsx/cjs', '-e', script], {
			cwd: ROOT,
			env: childEnv(),
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
		child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		const exited = new Promise<NodeJS.Signals | null>((resolve) =>
			child.on('exit', (_code, signal) => resolve(signal)),
		);
		await until('the group started', () => {
			if (child.exitCode !== null) throw new Error(`the script exited early: ${stderr}`);
			return stdout.includes('\n');
		});
		const pid = Number(stdout.trim());
		expect(await running(pid)).toBe(true);
		child.kill('SIGINT');
		expect(await exited).toBe('SIGINT');
		await until('the group killed', async () => !(await running(pid)), { timeoutMs: 5_000 });
	});
});
