import type { IncomingMessage, ServerResponse } from 'node:http';

import { ERROR_CODES } from '../nodes/Svc/contract';
import { checkFaultRules } from './faults';
import type { JsonResponse } from './http';
import { ApiError, asApiError, badRequest, errorResponse, isPlainObject, newId, parseJsonObject, readBody, writeJson } from './http';
import { checkSandboxKey } from './keys';
import { touchCampaign, upsertLead } from './operations';
import type { SandboxState } from './state';

/**
 * The admin API under /__admin/: test and demo controls on the same port, loopback only. It is
 * not part of the service's contract and is neither recorded nor counted.
 */
export const ADMIN_PREFIX = '/__admin/';

interface AdminCall {
	state: SandboxState;
	/** The pattern's capture groups, decoded. */
	params: string[];
	query: URLSearchParams;
	body: Record<string, unknown>;
}

interface AdminRoute {
	method: 'GET' | 'PUT' | 'POST' | 'DELETE';
	pattern: RegExp;
	handle: (call: AdminCall) => JsonResponse;
}

function ok(body: unknown, status = 200): JsonResponse {
	return { status, body };
}

const DONE = { ok: true };

const ADMIN_ROUTES: AdminRoute[] = [
	{ method: 'GET', pattern: /^faults$/, handle: ({ state }) => ok({ rules: state.faults.rules() }) },
	{ method: 'PUT', pattern: /^faults$/, handle: ({ state, body }) => ok({ rules: state.faults.set(checkFaultRules(body.rules)) }) },
	{
		method: 'DELETE',
		pattern: /^faults$/,
		handle: ({ state }) => {
			state.faults.clear();
			return ok({ rules: [] });
		},
	},
	{ method: 'GET', pattern: /^rate-limit$/, handle: ({ state }) => ok({ requestsPerSecond: state.rateLimiter.requestsPerSecond }) },
	{
		method: 'PUT',
		pattern: /^rate-limit$/,
		handle: ({ state, body }) => {
			if (!('requestsPerSecond' in body)) throw badRequest('Send { "requestsPerSecond": number | null }');
			return ok({ requestsPerSecond: state.rateLimiter.setRate(body.requestsPerSecond) });
		},
	},
	{ method: 'GET', pattern: /^requests$/, handle: ({ state }) => ok({ data: state.requests.all() }) },
	{
		method: 'DELETE',
		pattern: /^requests$/,
		handle: ({ state }) => {
			state.requests.clear();
			return ok(DONE);
		},
	},
	{ method: 'GET', pattern: /^stats$/, handle: ({ state }) => ok(state.stats.snapshot()) },
	{
		method: 'POST',
		pattern: /^stats\/reset$/,
		handle: ({ state }) => {
			state.stats.reset();
			return ok(state.stats.snapshot());
		},
	},
	{ method: 'POST', pattern: /^keys$/, handle: ({ state, body }) => ok(state.keys.add(checkSandboxKey(body)), 201) },
	{
		method: 'POST',
		pattern: /^reset$/,
		handle: ({ state }) => {
			state.reset();
			return ok(DONE);
		},
	},
	{ method: 'GET', pattern: /^subscriptions$/, handle: ({ state }) => ok({ data: [...state.store.subscriptions.values()] }) },
	{
		method: 'GET',
		pattern: /^deliveries$/,
		handle: ({ state, query }) =>
			ok({ data: state.deliveries.attempts({ eventId: query.get('event_id') ?? undefined, subscriptionId: query.get('subscription_id') ?? undefined }) }),
	},
	{ method: 'GET', pattern: /^events$/, handle: ({ state }) => ok({ data: state.deliveries.listEvents() }) },
	{
		method: 'POST',
		pattern: /^events\/emit$/,
		handle: ({ state, body }) => {
			const { type, data = {} } = body;
			if (typeof type !== 'string' || type.trim() === '') throw badRequest('type must be an event name, e.g. "lead.created"');
			if (!isPlainObject(data)) throw badRequest('data must be an object');
			return ok(state.deliveries.emit(type, data), 202);
		},
	},
	{
		method: 'POST',
		pattern: /^events\/([^/]+)\/redeliver$/,
		handle: ({ state, params: [eventId] }) => ok({ event_id: eventId, deliveries: state.deliveries.redeliver(eventId) }, 202),
	},
	{
		method: 'POST',
		pattern: /^leads$/,
		handle: ({ state, body }) => {
			const { lead, created } = upsertLead(state, body);
			return ok(lead, created ? 201 : 200);
		},
	},
	{ method: 'POST', pattern: /^campaigns\/([^/]+)\/touch$/, handle: ({ state, params: [campaignId], body }) => ok(touchCampaign(state, campaignId, body)) },
];

const LOOPBACK_PEERS = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

function route(state: SandboxState, method: string, url: URL, raw: string, remoteAddress: string | undefined): JsonResponse {
	if (remoteAddress === undefined || !LOOPBACK_PEERS.has(remoteAddress)) {
		throw new ApiError(403, ERROR_CODES.invalidRequest, 'The admin API answers loopback clients only');
	}
	const path = url.pathname.slice(ADMIN_PREFIX.length);
	let pathExists = false;
	for (const candidate of ADMIN_ROUTES) {
		const found = candidate.pattern.exec(path);
		if (!found) continue;
		pathExists = true;
		if (candidate.method !== method) continue;
		return candidate.handle({ state, params: found.slice(1).map(decodeURIComponent), query: url.searchParams, body: parseJsonObject(raw) });
	}
	if (pathExists) throw new ApiError(405, ERROR_CODES.invalidRequest, `${url.pathname} does not accept ${method}`);
	throw new ApiError(404, ERROR_CODES.notFound, `There is no admin endpoint ${method} ${url.pathname}`);
}

export async function handleAdmin(state: SandboxState, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
	const requestId = newId('req');
	let response: JsonResponse;
	try {
		response = route(state, req.method ?? 'GET', url, await readBody(req), req.socket.remoteAddress);
	} catch (error) {
		response = errorResponse(asApiError(error), requestId);
	}
	writeJson(res, response, requestId);
}
