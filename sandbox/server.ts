/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { handleAdmin, isAdminPath } from './admin';
import { handleApi } from './api';
import type { SandboxOptions } from './state';
import { SandboxState } from './state';

export interface Sandbox {
	/** http://127.0.0.1:<port>, without /v1: what a credential's Base URL takes. */
	url: string;
	/** Stops serving, cancels retries and latency timers, and drops open connections. */
	close(): Promise<void>;
	/** Direct in-process access, for tests. */
	state: SandboxState;
}

/** Starts the sandbox on 127.0.0.1; resolves once it listens. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const state = new SandboxState(options);
	const server = createServer((req, res) => {
		let url: URL;
		try {
			url = new URL(req.url ?? '/', 'http://sandbox');
		} catch {
			res.writeHead(400).end();
			return;
		}
		const handle = isAdminPath(url.pathname) ? handleAdmin : handleApi;
		// Both answer their own errors; anything escaping them is a sandbox bug, so drop the socket.
		handle(state, req, res, url).catch((error: unknown) =>
			res.destroy(error instanceof Error ? error : new Error(String(error))),
		);
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	const { port } = server.address() as AddressInfo;
	let closed: Promise<void> | undefined;
	return {
		url: `http://127.0.0.1:${port}`,
		state,
		close() {
			closed ??= new Promise<void>((resolve) => {
				state.close();
				server.close(() => resolve());
				server.closeAllConnections();
			});
			return closed;
		},
	};
}
