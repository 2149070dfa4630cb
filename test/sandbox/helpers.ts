/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import type { AxiosInstance } from 'axios';
import axios from 'axios';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

import { DEMO_KEYS } from '../../sandbox';

function demoKey(label: string): string {
	const found = DEMO_KEYS.find((key) => key.label === label);
	if (!found) throw new Error(`no demo key labelled ${label}`);
	return found.key;
}

export const KEYS = {
	full: demoKey('all scopes'),
	readOnly: demoKey('read only'),
	noSensitive: demoKey('all scopes except conversations:read:sensitive and campaigns:danger'),
	legacy: demoKey('legacy format, all scopes'),
	live: demoKey('live format, all scopes'),
};

/** An axios client that hands back every status instead of throwing. */
export function client(baseURL: string, key?: string, timeout = 10_000): AxiosInstance {
	return axios.create({
		baseURL,
		timeout,
		validateStatus: () => true,
		headers: {
			Accept: 'application/json',
			...(key === undefined ? {} : { Authorization: `Bearer ${key}` }),
		},
	});
}

export interface Received {
	headers: IncomingHttpHeaders;
	body: string;
}

/** What the receiver does with a delivery: a status, or a delay before answering. */
export type Reply = { status: number; delayMs?: number };

/** An https webhook receiver that records deliveries and answers from a script (then 200). */
export class Receiver {
	readonly received: Received[] = [];
	private script: Reply[] = [];
	private readonly timers = new Set<NodeJS.Timeout>();
	private readonly server: Server;

	constructor(tls: { key: string; cert: string }) {
		this.server = createServer(tls, (req, res) => this.handle(req, res));
	}

	async listen(): Promise<string> {
		await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
		return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
	}

	/** The next deliveries get these answers, in order. */
	reply(...replies: Reply[]): void {
		this.script = replies;
	}

	clear(): void {
		this.received.length = 0;
		this.script = [];
	}

	async close(): Promise<void> {
		for (const timer of this.timers) clearTimeout(timer);
		await new Promise<void>((resolve) => {
			this.server.close(() => resolve());
			this.server.closeAllConnections();
		});
	}

	private handle(req: IncomingMessage, res: ServerResponse): void {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			this.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
			const { status, delayMs = 0 } = this.script.shift() ?? { status: 200 };
			const timer = setTimeout(() => {
				this.timers.delete(timer);
				res.writeHead(status).end();
			}, delayMs);
			this.timers.add(timer);
		});
	}
}
