/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { ERROR_CODES } from '../nodes/Svc/contract';
import type { JsonResponse } from './body';
import { errorResponse, parseJsonObject, readBody, sendJson } from './body';
import { ApiError, asApiError, badRequest, methodNotAllowed } from './errors';
import type { EventListSettings } from './event-log';
import { checkFaultRules } from './faults';
import { newId } from './ids';
import { isPlainObject } from './json';
import { checkSandboxKey } from './keys';
import { touchCampaign, upsertLead } from './operations';
import { isPageSize, pageSizeProblem } from './query';
import type { PathRoute } from './routes';
import { compilePath, matchPath } from './routes';
import type { SandboxState } from './state';

/**
 * The admin API under /__admin/: test and demo controls on the same port, loopback only. It is
 * not part of the service's contract and is neither recorded nor counted.
 */
export const ADMIN_PREFIX = '/__admin/';

/** Whether a request path belongs to the admin API; `/__admin` alone is its index too. */
export function isAdminPath(pathname: string): boolean {
	return pathname === ADMIN_PREFIX.slice(0, -1) || pathname.startsWith(ADMIN_PREFIX);
}

interface AdminCall {
	state: SandboxState;
	/** The path's `{name}` segments, decoded, by name. */
	params: Record<string, string>;
	query: URLSearchParams;
	body: Record<string, unknown>;
}

type AdminMethod = 'GET' | 'PUT' | 'POST' | 'DELETE';

interface AdminRouteSpec {
	method: AdminMethod;
	/** Below the prefix, with `{name}` for a path segment: what the index shows and what is matched. */
	path: string;
	/** One line for the index. */
	description: string;
	handle: (call: AdminCall) => JsonResponse;
}

type AdminRoute = AdminRouteSpec & PathRoute;

/** One entry of `GET /__admin/`. */
export interface AdminEndpoint {
	method: AdminMethod;
	path: string;
	description: string;
}

function ok(body: unknown, status = 200): JsonResponse {
	return { status, body };
}

const DONE = { ok: true };

function checkEventListSettings(body: Record<string, unknown>): Partial<EventListSettings> {
	const { enabled, retentionMs, pageSizeMax } = body;
	if (enabled !== undefined && typeof enabled !== 'boolean')
		throw badRequest('enabled must be true or false');
	if (retentionMs !== undefined && !(Number.isInteger(retentionMs) && (retentionMs as number) > 0))
		throw badRequest('retentionMs must be a whole number of milliseconds above 0');
	if (pageSizeMax !== undefined && !isPageSize(pageSizeMax))
		throw badRequest(pageSizeProblem('pageSizeMax'));
	return {
		...(enabled === undefined ? {} : { enabled }),
		...(retentionMs === undefined ? {} : { retentionMs: retentionMs as number }),
		...(pageSizeMax === undefined ? {} : { pageSizeMax }),
	};
}

const ADMIN_ROUTE_SPECS: AdminRouteSpec[] = [
	{
		method: 'GET',
		path: '',
		description: 'This index: every admin endpoint with its method and what it does',
		handle: () => ok({ endpoints: adminEndpoints() }),
	},
	{
		method: 'GET',
		path: 'faults',
		description: 'The fault rules in force',
		handle: ({ state }) => ok({ rules: state.faults.rules() }),
	},
	{
		method: 'PUT',
		path: 'faults',
		description:
			'Replace the fault rules: { "rules": [{ "route", "latencyMs", "errorRate", "resetRate", "conflictRate", "rateLimitedRate", "hangRate", ... }] }',
		handle: ({ state, body }) => ok({ rules: state.faults.set(checkFaultRules(body.rules)) }),
	},
	{
		method: 'DELETE',
		path: 'faults',
		description: 'Remove every fault rule',
		handle: ({ state }) => {
			state.faults.clear();
			return ok({ rules: [] });
		},
	},
	{
		method: 'GET',
		path: 'rate-limit',
		description: 'The requests-per-second limit (null: none)',
		handle: ({ state }) => ok({ requestsPerSecond: state.rateLimiter.requestsPerSecond }),
	},
	{
		method: 'PUT',
		path: 'rate-limit',
		description:
			'Set the limit: { "requestsPerSecond": number | null }; over it the API answers 429 with Retry-After',
		handle: ({ state, body }) => {
			if (!('requestsPerSecond' in body))
				throw badRequest('Send { "requestsPerSecond": number | null }');
			return ok({ requestsPerSecond: state.rateLimiter.setRate(body.requestsPerSecond) });
		},
	},
	{
		method: 'GET',
		path: 'requests',
		description: 'Every API request recorded, with headers and body',
		handle: ({ state }) => ok({ data: state.requests.all() }),
	},
	{
		method: 'DELETE',
		path: 'requests',
		description: 'Forget the recorded requests',
		handle: ({ state }) => {
			state.requests.clear();
			return ok(DONE);
		},
	},
	{
		method: 'GET',
		path: 'stats',
		description:
			'Counters: requests (in flight, most at once, per route), leads, dispatches, takeovers, replays, faults injected',
		handle: ({ state }) => ok(state.stats.snapshot()),
	},
	{
		method: 'POST',
		path: 'stats/reset',
		description: 'Reset the counters',
		handle: ({ state }) => {
			state.stats.reset();
			return ok(state.stats.snapshot());
		},
	},
	{
		method: 'POST',
		path: 'keys',
		description: 'Add an API key: { "key", "scopes": [...], "label"? }',
		handle: ({ state, body }) => ok(state.keys.add(checkSandboxKey(body)), 201),
	},
	{
		method: 'POST',
		path: 'reset',
		description:
			'Back to the seeded demo state: data, keys, faults, rate limit, idempotency records, requests, counters, deliveries',
		handle: ({ state }) => {
			state.reset();
			return ok(DONE);
		},
	},
	{
		method: 'GET',
		path: 'subscriptions',
		description: 'Every webhook subscription, with its signing secret',
		handle: ({ state }) => ok({ data: [...state.store.subscriptions.values()] }),
	},
	{
		method: 'GET',
		path: 'deliveries',
		description: 'Delivery attempts; filter with ?event_id= and ?subscription_id=',
		handle: ({ state, query }) =>
			ok({
				data: state.deliveries.attempts({
					eventId: query.get('event_id') ?? undefined,
					subscriptionId: query.get('subscription_id') ?? undefined,
				}),
			}),
	},
	{
		method: 'GET',
		path: 'events',
		description: 'Every event emitted',
		handle: ({ state }) => ok({ data: state.deliveries.listEvents() }),
	},
	{
		method: 'GET',
		path: 'event-list',
		description: 'The event list\'s settings: { "enabled", "retentionMs", "pageSizeMax" }',
		handle: ({ state }) => ok(state.eventLog.current),
	},
	{
		method: 'PUT',
		path: 'event-list',
		description:
			'Change the event list: { "enabled": false } answers GET /v1/events with 404 (a service without it); { "retentionMs": n } keeps events n ms; { "pageSizeMax": n } puts at most n events on a page, whatever limit asks',
		handle: ({ state, body }) => ok(state.eventLog.configure(checkEventListSettings(body))),
	},
	{
		method: 'POST',
		path: 'events/emit',
		description:
			'Emit an event to its subscribers: { "type": "lead.created", "data": {...}, "count"? }; with count, that many events (data gets "n": 1..count) and the answer lists their ids',
		handle: ({ state, body }) => {
			const { type, data = {}, count } = body;
			if (typeof type !== 'string' || type.trim() === '')
				throw badRequest('type must be an event name, e.g. "lead.created"');
			if (!isPlainObject(data)) throw badRequest('data must be an object');
			if (count === undefined) return ok(state.deliveries.emit(type, data), 202);
			if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > 10_000)
				throw badRequest('count must be a whole number from 1 to 10000');
			const ids = Array.from(
				{ length: count as number },
				(_, index) => state.deliveries.emit(type, { ...data, n: index + 1 }).event.id,
			);
			return ok({ ids }, 202);
		},
	},
	{
		method: 'POST',
		path: 'events/{event_id}/redeliver',
		description: 'Deliver an event again, with the same webhook-id',
		handle: ({ state, params: { event_id: eventId } }) =>
			ok({ event_id: eventId, deliveries: state.deliveries.redeliver(eventId) }, 202),
	},
	{
		method: 'POST',
		path: 'leads',
		description:
			'Create or update a lead as the service would (a new one emits lead.created): { "email", ... }',
		handle: ({ state, body }) => {
			const { lead, created } = upsertLead(state, body);
			return ok(lead, created ? 201 : 200);
		},
	},
	{
		method: 'POST',
		path: 'campaigns/{campaign_id}/touch',
		description:
			'Change a campaign\'s "name" or "status" (e.g. { "status": "approved" }); emits campaign.updated',
		handle: ({ state, params: { campaign_id: campaignId }, body }) =>
			ok(touchCampaign(state, campaignId, body)),
	},
];

/** Compiled from the path the index shows, so the index and the routing share one spelling. */
const ADMIN_ROUTES: readonly AdminRoute[] = ADMIN_ROUTE_SPECS.map((spec) => ({
	...spec,
	...compilePath(spec.path),
}));

/** The index served at `GET /__admin/`, built from the routes themselves. */
export function adminEndpoints(): AdminEndpoint[] {
	return ADMIN_ROUTES.map(({ method, path, description }) => ({
		method,
		path: `${ADMIN_PREFIX}${path}`,
		description,
	}));
}

const LOOPBACK_PEERS = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

function route(
	state: SandboxState,
	method: string,
	url: URL,
	raw: string,
	remoteAddress: string | undefined,
): JsonResponse {
	if (remoteAddress === undefined || !LOOPBACK_PEERS.has(remoteAddress)) {
		throw new ApiError(
			403,
			ERROR_CODES.invalidRequest,
			'The admin API answers loopback clients only',
		);
	}
	const match = matchPath(ADMIN_ROUTES, method, url.pathname.slice(ADMIN_PREFIX.length));
	if (match === undefined)
		throw new ApiError(
			404,
			ERROR_CODES.notFound,
			`There is no admin endpoint ${method} ${url.pathname}`,
		);
	if ('allowed' in match) throw methodNotAllowed(method, url.pathname, match.allowed);
	return match.route.handle({
		state,
		params: match.params,
		query: url.searchParams,
		body: parseJsonObject(raw),
	});
}

export async function handleAdmin(
	state: SandboxState,
	req: IncomingMessage,
	res: ServerResponse,
	url: URL,
): Promise<void> {
	const requestId = newId('req');
	let response: JsonResponse;
	try {
		response = route(
			state,
			req.method ?? 'GET',
			url,
			await readBody(req),
			req.socket.remoteAddress,
		);
	} catch (error) {
		response = errorResponse(asApiError(error), requestId);
	}
	sendJson(res, response, requestId);
}
