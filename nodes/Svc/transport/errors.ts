import type { Failure, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ApiErrorBody, EndpointContract } from '../contract';
import {
	API_VERSION_PREFIX,
	ERROR_CODES,
	IDEMPOTENCY_WINDOW_HOURS,
	SCOPE_GRANTS,
} from '../contract';
import { isLoopbackHost } from './apiKey';
import type { Redactor } from './redact';

export interface FailureDetails {
	endpoint: EndpointContract;
	/** HTTP status, or undefined when no response arrived. */
	status?: number;
	body?: unknown;
	/** For network failures: the error code (ECONNREFUSED, ETIMEDOUT, ...). */
	networkCode?: string;
	attempts: number;
	baseUrl: string;
	itemIndex?: number;
	/** The wait the service asked for in its last answer (Retry-After). */
	retryAfterMs?: number;
}

function errorBody(body: unknown): Partial<ApiErrorBody['error']> {
	if (body !== null && typeof body === 'object' && 'error' in body) {
		const inner: unknown = body.error;
		if (inner !== null && typeof inner === 'object') return inner;
	}
	return {};
}

type UserErrorOptions = NonNullable<ConstructorParameters<typeof NodeOperationError>[2]>;

/**
 * Marks an error as the user's to fix (a key, a scope, a URL, a field), at n8n's 'warning'
 * level: n8n's error reporter then neither reports it as a crash nor prints its stack.
 * NodeError works out `shouldReport` from its default level before the subclass sets the
 * level, so it is set here as well.
 */
export function asUserError<T extends NodeApiError | NodeOperationError>(error: T): T {
	error.level = 'warning';
	// Declared read-only, but a plain field that n8n itself only ever reads.
	(error as { shouldReport: boolean }).shouldReport = false;
	return error;
}

/** A NodeOperationError at the user's level (see asUserError). */
export function userError(
	node: INode,
	message: string,
	options: Omit<UserErrorOptions, 'level'> = {},
): NodeOperationError {
	return asUserError(new NodeOperationError(node, message, { ...options, level: 'warning' }));
}

/** A 401: what the operations and the credential test both say. */
export const REJECTED_KEY_TEXT = {
	message: 'The API key was rejected (401): it is invalid, revoked or mistyped',
	description:
		"Paste the full key again as the credential's API Key, copied from the service's dashboard (Settings > API keys). If the key was rotated or revoked, create a new one there.",
} as const;

function retriedText(attempts: number): string {
	return attempts > 1 ? ` after ${attempts} attempts` : '';
}

/** A 2xx that is not the service's JSON: the Base URL leads to something else. */
export const NOT_THE_API_TEXT =
	'Check that the Base URL in the Svc API credential points at the service API, not at a website or proxy page.';

/** The node never follows a redirect (transport/client.ts): a 3xx is an answer of its own. */
export function isRedirect(status: number): boolean {
	return status >= 300 && status < 400;
}

const CERTIFICATE_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

/**
 * The likely cause of a connection that got no answer, and where to fix it, by its error code:
 * what operations and the credential test both say.
 */
export function networkCause(code: string | undefined, baseUrl: string): string {
	let host = baseUrl;
	let hostname = baseUrl;
	try {
		({ host, hostname } = new URL(baseUrl));
	} catch {
		// The credential checks the Base URL; an unparsable one is named as it is.
	}
	if (code === 'ECONNREFUSED')
		return `Nothing accepted the connection at ${host}: check the port in the credential's Base URL, and that the service runs there.`;
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
		return `The host name ${hostname} does not resolve: check the credential's Base URL for a typo, and this machine's DNS.`;
	if (code === 'EPROTO' || code?.startsWith('ERR_SSL') === true) {
		// Plain http is allowed only on loopback (apiKey.ts), so only there is http:// the fix.
		const fix = isLoopbackHost(hostname)
			? 'If the service there is served over plain http, change the Base URL to start with http://; otherwise check its port.'
			: "Check the port, and that the Base URL is the service's https address (plain http is accepted only for 127.0.0.1 or localhost).";
		return `The server at ${host} did not answer in TLS: the credential's Base URL most likely says https:// for a server that speaks http, or names the port of another service. ${fix}`;
	}
	if (code !== undefined && CERTIFICATE_CODES.test(code)) {
		return `The TLS certificate of ${host} is not trusted: check that the credential's Base URL is the service's own address; a proxy that re-signs traffic needs its CA in n8n's NODE_EXTRA_CA_CERTS.`;
	}
	if (code === 'ETIMEDOUT' || code === 'ECONNABORTED' || code === 'ESOCKETTIMEDOUT')
		return `No answer from ${host} in time: check the network, and any firewall or proxy between n8n and the service.`;
	if (code === 'ECONNRESET' || code === 'EPIPE')
		return `The connection to ${host} was cut: check any proxy or firewall between n8n and the service.`;
	return `Check the credential's Base URL, the network and any proxy.`;
}

/** What happened and what the user can do about it, per status and error code of the contract. */
export function describeFailure(details: FailureDetails): { message: string; description: string } {
	const { endpoint, status, attempts } = details;
	const server = errorBody(details.body);
	const serverMessage = server.message ? ` The service said: ${server.message}` : '';
	const route = `${endpoint.method} ${endpoint.path}`;

	if (status === undefined) {
		const code = details.networkCode ?? 'no response';
		return {
			message: `Could not reach the service (${code})${retriedText(attempts)}`,
			description: `${route} to ${details.baseUrl} got no answer. ${networkCause(details.networkCode, details.baseUrl)} Then run again; writes are safe to repeat because they carry the same Idempotency-Key.`,
		};
	}
	switch (status) {
		case 400:
			return {
				message: `The service rejected the request as invalid (400)`,
				description: `${server.message ?? 'A field is missing or malformed.'} Fix the named field in this node's parameters or input item.`,
			};
		case 401:
			return { ...REJECTED_KEY_TEXT };
		case 403: {
			const scope = server.required_scope ?? endpoint.scope ?? 'a scope this key lacks';
			const grants = endpoint.scope ? `, which lets a key ${SCOPE_GRANTS[endpoint.scope]}` : '';
			return {
				message: `The API key lacks the scope "${scope}" that this operation needs (403)`,
				description: `${route} requires the scope ${scope}${grants}. In the service's dashboard (Settings > API keys) create or edit a key with that scope and use it in the Svc API credential.`,
			};
		}
		case 404:
			// A path without an ID that is not found means the Base URL leads somewhere else.
			if (!endpoint.path.includes('{')) {
				return {
					message: 'The Base URL does not lead to the service API (404)',
					description: `${route} at ${details.baseUrl} was not found. Put the service's API address in the Base URL of the Svc API credential, without ${API_VERSION_PREFIX}.${serverMessage}`,
				};
			}
			return {
				message: 'The resource was not found (404)',
				description: `${route}: check the ID.${serverMessage}`,
			};
		case 409:
			return {
				message: `The same write was still in progress on the service (409)${retriedText(attempts)}`,
				description: `Another request with the same Idempotency-Key had not finished. Run again later: the key is the same, so the write still happens only once.${serverMessage}`,
			};
		case 422:
			if (server.code === ERROR_CODES.idempotencyKeyReused) {
				return {
					message: 'The Idempotency-Key was already used for a different request (422)',
					description: `The service keeps each key for ${IDEMPOTENCY_WINDOW_HOURS} hours and applies it to one request body only. Leave the Idempotency Key option empty so the node derives a key per item, or give each different write its own UUID.`,
				};
			}
			return {
				message: 'The service could not accept the data (422)',
				description: `${server.message ?? 'A value failed validation.'} Fix the value in this node's parameters or input item.`,
			};
		case 429:
			return {
				message: `Rate limit hit: the service kept answering 429${retriedText(attempts)}`,
				description:
					'Lower "Max Requests per Second" or "Concurrency" in this node\'s options, or run the workflow again later.',
			};
		default:
			if (isRedirect(status)) {
				return {
					message: `The service answered with a redirect (${status}), which the node does not follow`,
					description: `${route} at ${details.baseUrl} was redirected elsewhere. Following it would send the API key to that address, so the node stops. Put the service's own API address in the Base URL of the Svc API credential (often https:// where http:// was typed).`,
				};
			}
			if (status >= 500) {
				return {
					message: `The service failed with status ${status}${retriedText(attempts)}`,
					description: `${route} kept failing on the service's side. Run again later; writes carry the same Idempotency-Key and are not applied twice.${serverMessage}`,
				};
			}
			return {
				message: `Unexpected status ${status} from the service`,
				description: `${route}.${serverMessage}`,
			};
	}
}

/** Why a request failed, in n8n's terms (n8n-workflow's Failure): whether waiting can help. */
function failureCause({ status, retryAfterMs }: FailureDetails): Failure {
	if (status === undefined || status >= 500 || status === 409)
		return { cause: 'temporarily-unavailable', retryAfterMs };
	if (status === 429) return { cause: 'rate-limited', retryAfterMs };
	if (status === 401) return { cause: 'credential-invalid' };
	return { cause: 'configuration-invalid' };
}

/**
 * The error a node shows. It is built from a small, redacted summary, never from the raw HTTP
 * error (whose request config would carry the Authorization header).
 */
export function toNodeApiError(
	node: INode,
	details: FailureDetails,
	redactor: Redactor,
): NodeApiError {
	const { message, description } = describeFailure(details);
	const server = errorBody(details.body);
	const summary: JsonObject = redactor.value({
		status: details.status ?? null,
		code: server.code ?? details.networkCode ?? null,
		message: server.message ?? message,
		required_scope:
			server.required_scope ?? (details.status === 403 ? details.endpoint.scope : null),
		request_id: server.request_id ?? null,
		attempts: details.attempts,
	});
	const error = new NodeApiError(node, summary, {
		message: redactor.text(message),
		description: redactor.text(description),
		httpCode: details.status === undefined ? undefined : String(details.status),
		itemIndex: details.itemIndex,
	});
	// Set as a field: n8n 1.x's NodeApiError takes no such option. n8n 2.41's poll scheduler reads it.
	error.failure = failureCause(details);
	// NodeApiError swaps a message that mentions a network code (ECONNRESET, ...) for a generic
	// one; ours already says what happened and where.
	error.message = redactor.text(message);
	// A 3xx is the Base URL; a 4xx the key, a scope or the input: the user's to fix. 5xx and
	// network failures keep n8n's defaults.
	const status = details.status ?? 0;
	return status >= 300 && status < 500 && status !== 429 ? asUserError(error) : error;
}
