/** Small HTTP(S) client on node:http(s), so a per-call CA can be trusted without extra packages. */
import {
	request as httpRequest,
	type Agent as HttpAgent,
	type IncomingHttpHeaders,
} from 'node:http';
import { request as httpsRequest, type Agent as HttpsAgent } from 'node:https';

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

export async function request<T = unknown>(
	url: string,
	options: HttpRequestOptions = {},
): Promise<HttpResult<T>> {
	const target = new URL(url);
	const headers: Record<string, string> = { ...options.headers };
	let payload: Buffer | undefined;
	if (options.body !== undefined) {
		if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) {
			payload = Buffer.from(options.body);
		} else {
			payload = Buffer.from(JSON.stringify(options.body));
			headers['content-type'] ??= 'application/json';
		}
		headers['content-length'] = String(payload.length);
	}
	const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
	const attempt = async (): Promise<HttpResult<T>> =>
		await new Promise<HttpResult<T>>((resolvePromise, reject) => {
			const req = send(
				target,
				{
					method: options.method ?? 'GET',
					headers,
					agent: options.agent,
					ca: options.ca,
					timeout: options.timeoutMs ?? 30_000,
				},
				(res) => {
					const chunks: Buffer[] = [];
					res.on('data', (chunk: Buffer) => chunks.push(chunk));
					res.on('error', reject);
					res.on('end', () => {
						const text = Buffer.concat(chunks).toString('utf8');
						let body: unknown = text;
						if ((res.headers['content-type'] ?? '').includes('json') && text !== '') {
							try {
								body = JSON.parse(text);
							} catch {
								// Keep the text: callers print it in errors.
							}
						}
						resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, body: body as T });
					});
				},
			);
			req.on('timeout', () =>
				req.destroy(new Error(`${options.method ?? 'GET'} ${url} timed out`)),
			);
			req.on('error', (error: NodeJS.ErrnoException) =>
				reject(Object.assign(error, { reusedSocket: req.reusedSocket })),
			);
			req.end(payload);
		});
	try {
		return await attempt();
	} catch (error) {
		// A kept-alive socket the server closed just as this request went out (seen under load): the
		// request almost surely never arrived, so it goes once more on a fresh socket, as Node's docs advise.
		if (
			(error as { reusedSocket?: boolean; code?: string }).reusedSocket &&
			(error as { code?: string }).code === 'ECONNRESET'
		)
			return await attempt();
		throw error;
	}
}
