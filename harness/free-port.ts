/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Where picked ports start; below it sit well-known services' ports. */
const LOWEST_PORT = 15_000;

/**
 * The first port the system hands out for outgoing connections. A port picked inside that range
 * can be taken, before the process it is meant for binds it, by any connection this machine
 * opens meanwhile (n8n's to PostgreSQL, a test's to n8n): CI once saw a webhook processor fail
 * with "port already in use" a minute after its port was picked.
 */
export function ephemeralPortStart(rangeFile = '/proc/sys/net/ipv4/ip_local_port_range'): number {
	try {
		const start = Number(readFileSync(rangeFile, 'utf8').trim().split(/\s+/)[0]);
		return Number.isInteger(start) && start > 0 ? start : 32_768;
	} catch {
		return 32_768; // Linux's default, also where the file does not exist
	}
}

async function bindable(port: number): Promise<number | undefined> {
	return await new Promise((resolvePromise) => {
		const server = createServer();
		server.unref();
		server.once('error', () => resolvePromise(undefined));
		server.listen(port, '127.0.0.1', () => {
			const address = server.address();
			const bound = typeof address === 'object' && address ? address.port : undefined;
			server.close(() => resolvePromise(bound));
		});
	});
}

/**
 * A TCP port on 127.0.0.1, free now and outside the range outgoing connections draw from, so it
 * stays free until the process it is for binds it. Random, so parallel test files rarely meet.
 */
export async function freePort(): Promise<number> {
	const end = ephemeralPortStart();
	if (end - LOWEST_PORT >= 1_000) {
		for (let attempt = 0; attempt < 50; attempt++) {
			const port = await bindable(LOWEST_PORT + Math.floor(Math.random() * (end - LOWEST_PORT)));
			if (port !== undefined) return port;
		}
	}
	// A system whose whole range is ephemeral: let it pick, as before.
	const picked = await bindable(0);
	if (picked === undefined) throw new Error('no free TCP port on 127.0.0.1');
	return picked;
}
