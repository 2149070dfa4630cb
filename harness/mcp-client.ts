/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/* eslint-disable import-x/no-unresolved -- the SDK's exports map, which this resolver reads with node10 resolution */
/**
 * The official MCP client (`@modelcontextprotocol/sdk`, Streamable HTTP) against n8n's MCP Server
 * Trigger over https on loopback: requests go through node:https so the harness's local CA can be
 * trusted per connection, without touching the process-wide trust store.
 */
import { request as httpsRequest } from 'node:https';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

function responseHeaders(headers: IncomingHttpHeaders): Headers {
	const result = new Headers();
	for (const [name, value] of Object.entries(headers)) {
		if (value === undefined) continue;
		for (const one of Array.isArray(value) ? value : [value]) result.append(name, one);
	}
	return result;
}

async function bodyBytes(body: RequestInit['body']): Promise<Buffer | undefined> {
	if (body === undefined || body === null) return undefined;
	if (typeof body === 'string') return Buffer.from(body);
	return Buffer.from(await new Response(body).arrayBuffer());
}

/** A fetch on node:http(s) that trusts `ca` (PEM) for https URLs; the response body streams (SSE works). */
export function fetchTrusting(ca: string | undefined): FetchLike {
	return async (url, init = {}) => {
		const target = new URL(url);
		const payload = await bodyBytes(init.body);
		const headers: Record<string, string> = {};
		new Headers(init.headers).forEach((value, name) => {
			headers[name] = value;
		});
		if (payload !== undefined) headers['content-length'] = String(payload.length);
		const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
		return await new Promise<Response>((resolve, reject) => {
			const req = send(
				target,
				// A connection of its own per request (agent: false): Node's global agent keeps sockets
				// alive, and one n8n closed while idle fails the next request that reuses it.
				{
					method: init.method ?? 'GET',
					headers,
					ca,
					agent: false,
					signal: init.signal ?? undefined,
				},
				(res) => {
					const status = res.statusCode ?? 0;
					const empty = status === 204 || status === 304 || init.method === 'HEAD';
					if (empty) res.resume();
					const body = empty
						? null
						: (Readable.toWeb(
								res,
							) as WebReadableStream<Uint8Array> as unknown as ReadableStream<Uint8Array>);
					resolve(
						new Response(body, {
							status,
							statusText: res.statusMessage,
							headers: responseHeaders(res.headers),
						}),
					);
				},
			);
			req.on('error', reject);
			req.end(payload);
		});
	};
}

export interface McpConnection {
	client: Client;
	/** The session id the server gave this connection, if it keeps sessions. */
	readonly sessionId: string | undefined;
	/** Lists the server's tools, bounded by the connection's timeout. */
	listTools(): Promise<Tool[]>;
	/** Calls a tool, bounded by the connection's timeout; an MCP error result is returned, not thrown. */
	callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
	close(): Promise<void>;
}

/**
 * Connects the official client to an MCP endpoint (e.g. https://localhost:PORT/mcp/<path>), with
 * `Authorization: Bearer <token>` when a token is given. Every request is bounded by `timeoutMs`
 * (default 20 s), so a server that never answers fails the test instead of hanging it.
 */
export async function connectMcp(
	url: string,
	options: { ca?: string; token?: string; timeoutMs?: number } = {},
): Promise<McpConnection> {
	const timeout = options.timeoutMs ?? 20_000;
	const transport = new StreamableHTTPClientTransport(new URL(url), {
		fetch: fetchTrusting(options.ca),
		requestInit:
			options.token === undefined ? {} : { headers: { authorization: `Bearer ${options.token}` } },
	});
	const client = new Client({ name: 'n8n-nodes-svc-e2e', version: '1.0.0' });
	await client.connect(transport, { timeout });
	return {
		client,
		get sessionId() {
			return transport.sessionId;
		},
		listTools: async () => (await client.listTools(undefined, { timeout })).tools,
		callTool: async (name, args) =>
			(await client.callTool({ name, arguments: args }, undefined, { timeout })) as CallToolResult,
		close: async () => {
			await client.close();
		},
	};
}

/** The text parts of a tool result, joined. */
export function resultText(result: CallToolResult): string {
	return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

/**
 * The failure an MCP error result carries, in either form n8n writes it: on a single main, the MCP
 * Server Trigger's `<error name>: <message>` (2.41 names the class, 1.123 writes `Error`); through
 * the 2.41 queue relay, `{"error":{"message":…,"name":…}}`.
 */
export function toolFailure(result: CallToolResult): { errorName?: string; message: string } {
	const text = resultText(result);
	try {
		const relayed = JSON.parse(text) as { error?: { message?: unknown; name?: unknown } };
		const { message, name } = relayed.error ?? {};
		if (typeof message === 'string')
			return { ...(typeof name === 'string' ? { errorName: name } : {}), message };
	} catch {
		// Not JSON: the single-main form.
	}
	const named = /^(\w*Error): ([\s\S]*)$/.exec(text);
	return named ? { errorName: named[1], message: named[2] } : { message: text };
}
