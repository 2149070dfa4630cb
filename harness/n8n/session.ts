/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * Requests to a running n8n as its owner: the REST API with the owner's login cookie, the public
 * API with an API key, and any URL of it over one kept-alive agent that trusts its CA. The n8n
 * this process started uses it (process.ts), and so does a test file attached to the n8n its jest
 * run shares (shared.ts).
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

import type { HttpMethod, HttpRequestOptions, HttpResult } from '../http';
import { request } from '../http';
import { sleep } from '../wait';

/**
 * n8n answers every request but its health checks 503 "Database is not ready!" while its database
 * monitor's last ping has failed (a SELECT 1 that timed out on a busy machine, seen in CI), until
 * a ping passes again about 2 s later. Such a request reached nothing behind that check, so it is
 * sent again, for up to this long.
 */
const DATABASE_NOT_READY_MS = 30_000;

const databaseNotReady = (result: HttpResult): boolean =>
	result.status === 503 && JSON.stringify(result.body).includes('Database is not ready');

/** What it takes to call an n8n as its owner; the login fills in cookie and apiKey. */
export interface N8nSession {
	/** e.g. https://localhost:5678 (no trailing slash). */
	baseUrl: string;
	/** PEM of the CA that signed n8n's certificate (empty over http). */
	caPem: string;
	/** Sent as n8n's browser-id header: n8n ties the login cookie to it. */
	browserId: string;
	cookie: string;
	apiKey: string;
}

/** The calls a session makes; a started n8n (N8nInstance) offers them too. */
export interface N8nSessionCalls {
	/**
	 * Logged-in REST call; `path` is relative to /rest (e.g. '/workflows'). Responses are `{ data }`
	 * envelopes. `timeoutMs` for a call n8n answers only when work has ended (default 30 s).
	 */
	rest: <T = unknown>(
		method: HttpMethod,
		path: string,
		body?: unknown,
		options?: { timeoutMs?: number },
	) => Promise<HttpResult<T>>;
	/** Public API call; `path` is relative to /api/v1 (e.g. '/workflows'). */
	api: <T = unknown>(method: HttpMethod, path: string, body?: unknown) => Promise<HttpResult<T>>;
	/** Any request to this n8n (e.g. a webhook URL), trusting its CA and reusing its connections. */
	fetch: <T = unknown>(url: string, options?: HttpRequestOptions) => Promise<HttpResult<T>>;
}

export type N8nRequests = N8nSessionCalls & {
	/** Closes the kept-alive connections. */
	close: () => void;
};

/**
 * The session's requests. `noAnswer`: turns a request that got no answer into the error thrown
 * (e.g. saying whether n8n still runs, with its log); undefined rethrows it as it is.
 */
export function sessionRequests(
	session: N8nSession,
	noAnswer?: (error: Error, method: HttpMethod, url: string) => Promise<Error | undefined>,
): N8nRequests {
	const agent = session.baseUrl.startsWith('https:')
		? new HttpsAgent({ keepAlive: true, ca: session.caPem })
		: new HttpAgent({ keepAlive: true });
	const fetch = async <T>(
		url: string,
		options: HttpRequestOptions = {},
	): Promise<HttpResult<T>> => {
		try {
			let result = await request<T>(url, { agent, ...options });
			const deadline = Date.now() + DATABASE_NOT_READY_MS;
			while (databaseNotReady(result) && Date.now() < deadline) {
				await sleep(250);
				result = await request<T>(url, { agent, ...options });
			}
			return result;
		} catch (error) {
			throw (await noAnswer?.(error as Error, options.method ?? 'GET', url)) ?? error;
		}
	};
	return {
		fetch,
		rest: async <T>(
			method: HttpMethod,
			path: string,
			body?: unknown,
			{ timeoutMs }: { timeoutMs?: number } = {},
		) =>
			await fetch<T>(`${session.baseUrl}/rest${path}`, {
				method,
				body,
				headers: {
					'browser-id': session.browserId,
					...(session.cookie ? { cookie: session.cookie } : {}),
				},
				timeoutMs,
			}),
		api: async <T>(method: HttpMethod, path: string, body?: unknown) =>
			await fetch<T>(`${session.baseUrl}/api/v1${path}`, {
				method,
				body,
				headers: { 'x-n8n-api-key': session.apiKey },
			}),
		close: () => agent.destroy(),
	};
}
