/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- tooling that runs in Node.js beside n8n, never inside it */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { EndpointName, ListPage, Me } from '../nodes/Svc/contract';
import {
	ERROR_CODES,
	FORBIDDEN_REQUEST_HEADERS,
	IDEMPOTENCY_HEADER,
	IDEMPOTENT_REPLAYED_HEADER,
	LEAD_LIST_FILTERS,
	LIST_QUERY,
	SENSITIVE_READ_SCOPE,
	THREAD_LIST_FILTERS,
	UUID_PATTERN,
} from '../nodes/Svc/contract';
import type { JsonResponse } from './body';
import { checkJsonContentType, errorResponse, parseJsonObject, readBody, sendJson } from './body';
import type { Collection } from './collection';
import type { FaultOutcome } from './faults';
import {
	ApiError,
	asApiError,
	badRequest,
	codeForStatus,
	methodNotAllowed,
	orNotFound,
	rateLimited,
} from './errors';
import { newId } from './ids';
import { limitParam } from './query';
import type { Claim } from './idempotency';
import { fingerprint } from './idempotency';
import type { SandboxKey } from './keys';
import { describeKey } from './keys';
import {
	assistantTakeover,
	createSubscription,
	dispatchCampaign,
	publicSubscription,
	readMessage,
	upsertLead,
} from './operations';
import type { Route } from './routes';
import { matchRoute } from './routes';
import type { SandboxState } from './state';
import type { RecordedRequest } from './telemetry';

interface ApiCall {
	state: SandboxState;
	key: SandboxKey;
	params: Record<string, string>;
	query: URLSearchParams;
	body: Record<string, unknown>;
}

type Handler = (call: ApiCall) => JsonResponse;

const ACCOUNT: Me['account'] = { id: 'acc_sandbox', name: 'Sandbox account' };
/** Page size when the client gives no `limit` (then capped by maxPageSize). */
const DEFAULT_PAGE_SIZE = 25;

function ok(body: unknown, status = 200): JsonResponse {
	return { status, body };
}

function pageParams({ query, state }: ApiCall): { limit: number; cursor: string | undefined } {
	const limit = limitParam(query, LIST_QUERY.limit, DEFAULT_PAGE_SIZE);
	const cursor = query.get(LIST_QUERY.cursor);
	return {
		limit: Math.min(limit, state.maxPageSize),
		cursor: cursor === null || cursor === '' ? undefined : cursor,
	};
}

/** Items equal to every filter the query gives; emails compare case-insensitively. */
function queryFilter<T>(
	query: URLSearchParams,
	fields: readonly (keyof T & string)[],
): (item: T) => boolean {
	const normal = (field: string, value: string) =>
		field === 'email' ? value.toLowerCase() : value;
	const wanted = fields.flatMap((field) => {
		const value = query.get(field);
		return value === null || value === '' ? [] : [{ field, value: normal(field, value) }];
	});
	return (item) =>
		wanted.every(({ field, value }) => {
			const actual: unknown = item[field];
			return typeof actual === 'string' && normal(field, actual) === value;
		});
}

function page<T extends { id: string }, R = T>(
	collection: Collection<T>,
	call: ApiCall,
	filter?: (item: T) => boolean,
	show?: (item: T) => R,
): JsonResponse {
	const { limit, cursor } = pageParams(call);
	const found = collection.page(limit, cursor, filter);
	const body: ListPage<T | R> = show
		? { data: found.data.map(show), next_cursor: found.next_cursor }
		: found;
	return ok(body);
}

/** One handler per contract endpoint: the Record type makes a missing one a compile error. */
const HANDLERS: Record<EndpointName, Handler> = {
	getMe: ({ key }) => ok({ account: ACCOUNT, key: describeKey(key) } satisfies Me),
	upsertLead: ({ state, body }) => {
		const { lead, created } = upsertLead(state, body);
		return ok(lead, created ? 201 : 200);
	},
	listLeads: (call) =>
		page(call.state.store.leads, call, queryFilter(call.query, LEAD_LIST_FILTERS)),
	getLead: ({ state, params }) =>
		ok(orNotFound(state.store.leads.get(params.lead_id), 'lead', params.lead_id)),
	listThreads: (call) =>
		page(call.state.store.threads, call, queryFilter(call.query, THREAD_LIST_FILTERS)),
	getThread: ({ state, params }) =>
		ok(orNotFound(state.store.threads.get(params.thread_id), 'thread', params.thread_id)),
	listMessages: (call) => {
		const thread = orNotFound(
			call.state.store.threads.get(call.params.thread_id),
			'thread',
			call.params.thread_id,
		);
		const sensitive = call.key.scopes.includes(SENSITIVE_READ_SCOPE);
		return page(
			call.state.store.messages,
			call,
			(message) => message.thread_id === thread.id,
			(message) => readMessage(message, sensitive),
		);
	},
	assistantTakeover: ({ state, params, body }) =>
		ok(assistantTakeover(state, params.lead_id, body)),
	listCampaigns: (call) => page(call.state.store.campaigns, call),
	getCampaign: ({ state, params }) =>
		ok(orNotFound(state.store.campaigns.get(params.campaign_id), 'campaign', params.campaign_id)),
	dispatchCampaign: ({ state, params, body }) =>
		ok(dispatchCampaign(state, params.campaign_id, body), 202),
	createSubscription: ({ state, body }) => ok(createSubscription(state, body), 201),
	listSubscriptions: (call) =>
		page(call.state.store.subscriptions, call, undefined, publicSubscription),
	getSubscription: ({ state, params }) =>
		ok(
			publicSubscription(
				orNotFound(
					state.store.subscriptions.get(params.subscription_id),
					'webhook subscription',
					params.subscription_id,
				),
			),
		),
	deleteSubscription: ({ state, params }) => {
		const { id } = orNotFound(
			state.store.subscriptions.get(params.subscription_id),
			'webhook subscription',
			params.subscription_id,
		);
		state.store.subscriptions.delete(id);
		return ok({ id, deleted: true });
	},
	listEvents: ({ state, key, query }) => ok(state.eventLog.page(query, key.scopes)),
};

/** A request that ends without an answer: the socket is destroyed, or left waiting. */
class Interrupted extends Error {
	constructor(readonly kind: 'reset' | 'hang') {
		super(kind);
	}
}

/** Injected faults that happen instead of the write. */
function raiseFault(outcome: FaultOutcome): void {
	const prefix = 'Injected fault (sandbox):';
	switch (outcome.kind) {
		case 'hang':
			throw new Interrupted('hang');
		case 'resetBefore':
			throw new Interrupted('reset');
		case 'error':
			if (outcome.status === 429)
				throw rateLimited(`${prefix} rate limited`, outcome.retryAfterSeconds);
			throw new ApiError(
				outcome.status,
				codeForStatus(outcome.status),
				`${prefix} status ${outcome.status}`,
			);
		case 'rateLimited':
			throw rateLimited(`${prefix} rate limited`, outcome.retryAfterSeconds);
		case 'conflict':
			throw new ApiError(
				409,
				ERROR_CODES.idempotencyInProgress,
				`${prefix} a request with this ${IDEMPOTENCY_HEADER} is still being processed`,
			);
	}
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
	const value = req.headers[name.toLowerCase()];
	return Array.isArray(value) ? value[0] : value;
}

function parseForLog(raw: string): unknown {
	try {
		return raw === '' ? null : (JSON.parse(raw) as unknown);
	} catch {
		return null;
	}
}

/**
 * The idempotency step: undefined when no key applies, the claim under which the write runs,
 * or the first response to replay.
 */
function checkIdempotency(
	state: SandboxState,
	req: IncomingMessage,
	route: Route,
	key: SandboxKey,
	body: Record<string, unknown>,
): Extract<Claim, { kind: 'claimed' | 'replay' }> | undefined {
	const { endpoint } = route;
	const idempotencyKey = headerValue(req, IDEMPOTENCY_HEADER);
	if (
		endpoint.method !== 'POST' ||
		(endpoint.idempotency !== 'required' && idempotencyKey === undefined)
	)
		return undefined;
	if (idempotencyKey === undefined) {
		throw badRequest(
			`The ${IDEMPOTENCY_HEADER} header is required for ${route.key}: send a UUID, the same one on every retry of this write`,
		);
	}
	if (!UUID_PATTERN.test(idempotencyKey))
		throw badRequest(
			`The ${IDEMPOTENCY_HEADER} header must be a UUID, e.g. 0b6f0c8e-2a51-4d3c-9f1e-1c2d3e4f5a6b`,
		);
	const found = state.idempotency.claim(key.key, idempotencyKey, fingerprint(route.key, body));
	switch (found.kind) {
		case 'claimed':
		case 'replay':
			return found;
		case 'reused':
			throw new ApiError(
				422,
				ERROR_CODES.idempotencyKeyReused,
				`This ${IDEMPOTENCY_HEADER} was already used with a different request; send a new key for a different write`,
			);
		case 'running':
			throw new ApiError(
				409,
				ERROR_CODES.idempotencyInProgress,
				`A request with this ${IDEMPOTENCY_HEADER} is still being processed; retry later with the same key`,
			);
	}
}

/** Authentication, scope, rate limit, body, idempotency, faults, then the handler. */
async function processRequest(
	state: SandboxState,
	req: IncomingMessage,
	query: URLSearchParams,
	entry: RecordedRequest,
): Promise<JsonResponse> {
	entry.rawBody = await readBody(req);
	entry.body = parseForLog(entry.rawBody);
	const match = matchRoute(entry.method, entry.path);
	if (match === undefined)
		throw new ApiError(
			404,
			ERROR_CODES.notFound,
			`There is no endpoint ${entry.method} ${entry.path}`,
		);
	if ('allowed' in match) throw methodNotAllowed(entry.method, entry.path, match.allowed);
	const { route, params } = match;
	entry.route = route.key;
	const forbidden = FORBIDDEN_REQUEST_HEADERS.find((name) => req.headers[name] !== undefined);
	if (forbidden !== undefined) {
		throw badRequest(
			`The ${forbidden} header is reserved for the dashboard's authenticated proxy; integrations authenticate with Authorization: Bearer <API_KEY> only`,
		);
	}
	const key = state.keys.authenticate(headerValue(req, 'authorization'));
	const { scope } = route.endpoint;
	if (scope !== null && !key.scopes.includes(scope)) {
		throw new ApiError(
			403,
			ERROR_CODES.missingScope,
			`This API key lacks the ${scope} scope, which ${route.key} needs`,
			scope,
		);
	}
	const wait = state.rateLimiter.take(key.key);
	if (wait !== null)
		throw rateLimited(`Too many requests for this API key; retry in ${wait} s`, wait);
	let body: Record<string, unknown> = {};
	if (route.endpoint.method === 'POST') {
		checkJsonContentType(entry.rawBody, headerValue(req, 'content-type'));
		body = parseJsonObject(entry.rawBody);
	}

	const idempotency = checkIdempotency(state, req, route, key, body);
	const claim = idempotency?.kind === 'claimed' ? idempotency : undefined;
	const fault = state.faults.decide(route.key);
	let response: JsonResponse;
	try {
		// Latency runs while the key is claimed, so a retry during it sees 409.
		if (fault && fault.latencyMs > 0 && !(await state.timers.sleep(fault.latencyMs)))
			throw new Interrupted('hang');
		// Faults hit replays too: they stand for trouble between the client and the service.
		if (fault && fault.outcome.kind !== 'none') {
			entry.fault = fault.outcome.kind;
			state.stats.count('faultsInjected');
			raiseFault(fault.outcome);
		}
		if (idempotency?.kind === 'replay') {
			entry.replayed = true;
			state.stats.count('replays');
			response = {
				...idempotency.response,
				headers: { ...idempotency.response.headers, [IDEMPOTENT_REPLAYED_HEADER]: 'true' },
			};
		} else {
			response = HANDLERS[route.name]({ state, key, params, query, body });
		}
	} catch (error) {
		// Refusals by the handler (404, 422) are the write's answer and are replayed like one.
		if (!(error instanceof ApiError) || error.status >= 500 || entry.fault !== null) {
			claim?.release();
			throw error;
		}
		response = errorResponse(error, entry.requestId);
	}
	claim?.complete(response);
	// The write is committed; the client just never hears about it.
	if (fault?.outcome.kind === 'resetAfter') throw new Interrupted('reset');
	return response;
}

/** Serves one request to /v1 (or any path outside the admin API), recording it. */
export async function handleApi(
	state: SandboxState,
	req: IncomingMessage,
	res: ServerResponse,
	url: URL,
): Promise<void> {
	const started = performance.now();
	const entry: RecordedRequest = {
		requestId: newId('req'),
		time: state.now(),
		method: req.method ?? 'GET',
		path: url.pathname,
		route: null,
		query: Object.fromEntries(url.searchParams),
		headers: { ...req.headers },
		rawBody: '',
		body: null,
		status: null,
		replayed: false,
		fault: null,
		durationMs: null,
	};
	state.requests.add(entry);
	state.stats.requestStarted();
	res.once('close', () => {
		entry.durationMs = Math.round(performance.now() - started);
		state.stats.requestEnded(
			entry.route ?? 'unmatched',
			entry.status === null ? (entry.fault ?? 'aborted') : String(entry.status),
		);
	});
	let response: JsonResponse;
	try {
		response = await processRequest(state, req, url.searchParams, entry);
	} catch (error) {
		if (error instanceof Interrupted) {
			if (error.kind === 'reset') req.socket.destroy();
			// A hang answers nothing; the client's timeout or close() ends the connection.
			return;
		}
		response = errorResponse(asApiError(error), entry.requestId);
	}
	entry.status = response.status;
	sendJson(res, response, entry.requestId);
}
