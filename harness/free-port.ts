/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 free a moment ago: the system picks it, we release it at once. */
export async function freePort(): Promise<number> {
	return await new Promise((resolvePromise, reject) => {
		const server = createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => resolvePromise(port));
		});
	});
}
