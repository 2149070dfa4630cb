/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** A delivery to a trigger's webhook as express would hand it to n8n, and the answer n8n writes back, recorded. */
import { EventEmitter } from 'node:events';

import type { Request, Response } from 'express';
import type { IDataObject, IHttpRequestMethods, IWebhookData } from 'n8n-workflow';
import { Webhook } from 'standardwebhooks';

import type { EventEnvelope } from '../../nodes/Svc/contract';

export interface Delivery {
	method?: IHttpRequestMethods;
	/** Names are lower-cased, as Node's HTTP server gives them. */
	headers?: Record<string, string | string[]>;
	rawBody?: Buffer | string;
	query?: IDataObject;
	/** Called once the delivery is answered, which for an execution's answer is before it ends. */
	onAnswer?: (response: RecordedResponse) => void;
	/** The execution's id; n8n 1.x re-runs the job of a dead worker under the id it had. */
	executionId?: string;
	/**
	 * The execution ends (n8n runs its end hooks) only once this settles: the nodes after the
	 * trigger are still running until then.
	 */
	ends?: Promise<unknown>;
}

export interface RecordedResponse {
	statusCode: number;
	headers: Record<string, string | number | string[]>;
	body: unknown;
}

/** The members of express's Request that n8n's WebhookContext and trigger nodes read. */
export function webhookRequest(webhookData: IWebhookData, delivery: Delivery): Request {
	const rawBody = Buffer.from(delivery.rawBody ?? '');
	const headers = Object.fromEntries(
		Object.entries(delivery.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
	);
	let body: unknown = {};
	try {
		body = rawBody.length > 0 ? JSON.parse(rawBody.toString('utf8')) : {};
	} catch {
		// n8n hands non-JSON bodies to the node unparsed; the raw bytes stay in rawBody.
	}
	const request = {
		method: delivery.method ?? webhookData.httpMethod,
		url: `/webhook/${webhookData.path}`,
		headers,
		body,
		rawBody,
		query: delivery.query ?? {},
		params: {},
		get: (name: string) => headers[name.toLowerCase()],
		header: (name: string) => headers[name.toLowerCase()],
	};
	// Only a real express app builds a full Request; this one has what nodes use.
	return request as unknown as Request;
}

export function recordingResponse(): {
	response: Response;
	recorded: () => RecordedResponse | undefined;
} {
	const state: RecordedResponse = { statusCode: 200, headers: {}, body: undefined };
	let ended = false;
	// Node's response emits 'finish' once the answer has gone out.
	const events = new EventEmitter();
	const end = () => {
		if (!ended) {
			ended = true;
			events.emit('finish');
		}
	};
	const response = {
		once(name: string, listener: () => void) {
			events.once(name, listener);
			return response;
		},
		get headersSent() {
			return ended;
		},
		get statusCode() {
			return state.statusCode;
		},
		status(code: number) {
			state.statusCode = code;
			return response;
		},
		sendStatus(code: number) {
			state.statusCode = code;
			end();
			return response;
		},
		setHeader(name: string, value: string | number | string[]) {
			state.headers[name.toLowerCase()] = value;
			return response;
		},
		set(name: string, value: string | string[]) {
			return response.setHeader(name, value);
		},
		getHeader(name: string) {
			return state.headers[name.toLowerCase()];
		},
		json(body: unknown) {
			state.headers['content-type'] ??= 'application/json; charset=utf-8';
			state.body = body;
			end();
			return response;
		},
		send(body?: unknown) {
			state.body = body;
			end();
			return response;
		},
		end(body?: unknown) {
			if (body !== undefined) state.body = body;
			end();
			return response;
		},
	};
	return { response: response as unknown as Response, recorded: () => (ended ? state : undefined) };
}

/** `event` delivered as the service sends it: its JSON body, signed now with `secret` (Standard Webhooks). */
export function signedDelivery(secret: string, event: EventEnvelope): Delivery {
	const body = JSON.stringify(event);
	const now = new Date();
	return {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			'webhook-id': event.id,
			'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
			'webhook-signature': new Webhook(secret).sign(event.id, now, body),
		},
		rawBody: body,
	};
}
