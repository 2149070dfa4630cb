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
import type { N8nInstance } from './instance';

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

export type N8nRequests = Pick<N8nInstance, 'rest' | 'api' | 'fetch'> & {
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
			return await request<T>(url, { agent, ...options });
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
