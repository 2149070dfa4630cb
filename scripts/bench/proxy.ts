/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP pass-through on loopback that counts client connections. Pointing a client at it
 * instead of the sandbox tells whether the client reuses connections (keep-alive): the sandbox
 * itself cannot be changed to count them.
 */
export interface CountingProxy {
	url: string;
	connections(): number;
	reset(): void;
	close(): Promise<void>;
}

export async function startCountingProxy(targetPort: number): Promise<CountingProxy> {
	let count = 0;
	const sockets = new Set<Socket>();
	const track = (socket: Socket): void => {
		sockets.add(socket);
		socket.once('close', () => sockets.delete(socket));
	};
	const server = createServer((client) => {
		count++;
		track(client);
		const upstream = connect(targetPort, '127.0.0.1');
		track(upstream);
		// Either side ending or failing ends the pair, as a direct connection would.
		client.on('error', () => upstream.destroy());
		upstream.on('error', () => client.destroy());
		client.pipe(upstream);
		upstream.pipe(client);
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		connections: () => count,
		reset: () => {
			count = 0;
		},
		close: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
