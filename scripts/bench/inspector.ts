/* eslint-disable @n8n/community-nodes/no-restricted-globals -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * A full garbage collection in n8n through its inspector (n8n started with --inspect on
 * loopback), so each measured run starts from the same small heap and its peak RSS is its own,
 * not what an earlier run left behind.
 */

interface Target {
	webSocketDebuggerUrl?: string;
}

interface ProtocolReply {
	id?: number;
	error?: { message: string };
}

async function send(url: string, method: string, timeoutMs: number): Promise<void> {
	const socket = new WebSocket(url);
	try {
		await new Promise<void>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`inspector ${method} timed out`)), timeoutMs);
			socket.addEventListener('open', () => socket.send(JSON.stringify({ id: 1, method })));
			socket.addEventListener('message', (event: MessageEvent) => {
				const reply = JSON.parse(String(event.data)) as ProtocolReply;
				if (reply.id !== 1) return;
				clearTimeout(timer);
				if (reply.error) reject(new Error(`inspector ${method}: ${reply.error.message}`));
				else resolve();
			});
			socket.addEventListener('error', () => {
				clearTimeout(timer);
				reject(new Error(`inspector connection to ${url} failed`));
			});
		});
	} finally {
		socket.close();
	}
}

export async function collectGarbage(inspectPort: number, timeoutMs = 30_000): Promise<void> {
	const response = await fetch(`http://127.0.0.1:${inspectPort}/json/list`);
	const [target] = (await response.json()) as Target[];
	if (!target?.webSocketDebuggerUrl) throw new Error(`no inspector target on port ${inspectPort}`);
	await send(target.webSocketDebuggerUrl, 'HeapProfiler.collectGarbage', timeoutMs);
}
