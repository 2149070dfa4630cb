/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * The harness's HTTP client, on axios: every status is returned (none thrown), a JSON answer is
 * parsed and anything else kept as text, and an extra CA can be trusted per call for https.
 */
import type { Agent as HttpAgent, IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

import axios from 'axios';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpResult<T = unknown> {
	status: number;
	headers: IncomingHttpHeaders;
	/** Parsed JSON when the response is JSON, else the text. */
	body: T;
}

export interface HttpRequestOptions {
	method?: HttpMethod;
	headers?: Record<string, string>;
	/** Objects are sent as JSON; strings and Buffers as they are. */
	body?: unknown;
	/** Extra CA (PEM) to trust for https URLs. */
	ca?: string;
	agent?: HttpAgent | HttpsAgent;
	timeoutMs?: number;
}

/** One https agent per extra CA, so calls that trust the same CA share kept-alive sockets. */
const agentsByCa = new Map<string, HttpsAgent>();
function agentTrusting(ca: string): HttpsAgent {
	let agent = agentsByCa.get(ca);
	if (!agent) {
		agent = new HttpsAgent({ ca, keepAlive: true });
		agentsByCa.set(ca, agent);
	}
	return agent;
}

function parsed(text: string, contentType: string): unknown {
	if (!contentType.includes('json') || text === '') return text;
	try {
		return JSON.parse(text);
	} catch {
		// Keep the text: callers print it in errors.
		return text;
	}
}

export async function request<T = unknown>(
	url: string,
	options: HttpRequestOptions = {},
): Promise<HttpResult<T>> {
	const headers: Record<string, string> = { ...options.headers };
	let data: Buffer | undefined;
	if (options.body !== undefined) {
		if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) {
			data = Buffer.from(options.body);
		} else {
			data = Buffer.from(JSON.stringify(options.body));
			headers['content-type'] ??= 'application/json';
		}
	}
	// Without a body axios would still say it sends a form; n8n's public API refuses that with 415.
	const sent: Record<string, string | false> = { ...headers };
	if (
		data === undefined &&
		!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')
	)
		sent['content-type'] = false;
	const method = options.method ?? 'GET';
	const secure = new URL(url).protocol === 'https:';
	const agent = options.agent ?? (secure && options.ca ? agentTrusting(options.ca) : undefined);
	const send = async () =>
		await axios.request<string>({
			url,
			method,
			headers: sent,
			data,
			...(secure ? { httpsAgent: agent } : { httpAgent: agent }),
			timeout: options.timeoutMs ?? 30_000,
			responseType: 'text',
			// The raw text: JSON is parsed below only when the answer says it is JSON.
			transformResponse: (text: string) => text,
			validateStatus: () => true,
			maxRedirects: 0,
			proxy: false,
		});
	let response: Awaited<ReturnType<typeof send>>;
	try {
		response = await send();
	} catch (error) {
		const failure = error as { code?: string; request?: { reusedSocket?: boolean } };
		// A kept-alive socket the server closed just as this request went out (seen under load): the
		// request almost surely never arrived, so it goes once more on a fresh socket, as Node's docs advise.
		if (failure.code !== 'ECONNRESET' || failure.request?.reusedSocket !== true) throw error;
		response = await send();
	}
	// Node's names, lower-cased; set-cookie stays a list.
	const responseHeaders = { ...response.headers } as IncomingHttpHeaders;
	const text = typeof response.data === 'string' ? response.data : String(response.data ?? '');
	return {
		status: response.status,
		headers: responseHeaders,
		body: parsed(text, String(responseHeaders['content-type'] ?? '')) as T,
	};
}

/** Throws for an answer the caller did not expect: what was called, its status and its body. */
export function failedCall(what: string, result: HttpResult): never {
	const body = typeof result.body === 'string' ? result.body : JSON.stringify(result.body);
	throw new Error(`${what} answered HTTP ${result.status}: ${body}`);
}
