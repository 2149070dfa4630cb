/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { lockInstall } from '../../harness/cached-install';
import { runCommand } from '../../harness/commands';

describe('lockInstall: one install of a cache entry at a time', () => {
	let root: string;
	beforeEach(async () => {
		root = await mkdtemp(join(tmpdir(), 'svc-cache-'));
	});
	afterEach(async () => {
		await rm(root, { recursive: true, force: true });
	});

	it('the second process waits for the first and installs nothing; the lock goes with the release', async () => {
		const dir = join(root, 'entry');
		const done = () => Promise.resolve(existsSync(join(dir, 'marker')));
		const release = await lockInstall(dir, done, 10_000);
		expect(release).toBeDefined();
		let waiterSettled = false;
		const waiter = lockInstall(dir, done, 10_000).then((second) => {
			waiterSettled = true;
			return second;
		});
		// The first one installs; the second must still be waiting when the install completes.
		await mkdir(dir);
		expect(waiterSettled).toBe(false);
		await writeFile(join(dir, 'marker'), '{}');
		await release?.();
		expect(await waiter).toBeUndefined();
		expect(existsSync(`${dir}.lock`)).toBe(false);
	});

	it('takes over the lock of a process that died', async () => {
		const dir = join(root, 'entry');
		// A pid that no longer runs: a finished child's.
		const { stdout } = await runCommand('sh', ['-c', 'echo $$']);
		await mkdir(`${dir}.lock`);
		await writeFile(join(`${dir}.lock`, 'pid'), stdout.trim());
		const release = await lockInstall(dir, () => Promise.resolve(false), 10_000);
		expect(release).toBeDefined();
		await release?.();
	});

	it('times out, saying whose install it waited for, while a live process holds the lock', async () => {
		const dir = join(root, 'entry');
		await mkdir(`${dir}.lock`);
		await writeFile(join(`${dir}.lock`, 'pid'), String(process.pid));
		await expect(lockInstall(dir, () => Promise.resolve(false), 1_500)).rejects.toThrow(
			`the install into ${dir} by another process`,
		);
	});
});
