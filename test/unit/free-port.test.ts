/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ephemeralPortStart, freePort } from '../../harness/free-port';

describe('harness/free-port', () => {
	it('picks ports below the range outgoing connections draw from, each one bindable', async () => {
		const start = ephemeralPortStart();
		const ports = await Promise.all(Array.from({ length: 20 }, async () => await freePort()));
		for (const port of ports) {
			expect(port).toBeLessThan(start);
			const server = createServer();
			await new Promise<void>((resolve, reject) => {
				server.once('error', reject);
				server.listen(port, '127.0.0.1', resolve);
			});
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});

	it("reads the range's start from the system's file, falling back to Linux's default", async () => {
		const folder = await mkdtemp(join(tmpdir(), 'free-port-'));
		try {
			const rangeFile = join(folder, 'ip_local_port_range');
			await writeFile(rangeFile, '40000\t60999\n');
			expect(ephemeralPortStart(rangeFile)).toBe(40_000);
			await writeFile(rangeFile, 'garbage\n');
			expect(ephemeralPortStart(rangeFile)).toBe(32_768);
			expect(ephemeralPortStart(join(folder, 'missing'))).toBe(32_768);
		} finally {
			await rm(folder, { recursive: true, force: true });
		}
	});
});
