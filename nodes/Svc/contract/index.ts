/**
 * Every choice the connector makes about the service's HTTP API lives in this folder: paths,
 * idempotency rules, key formats, shapes and error codes here; the scopes in scopes.ts and the
 * events (their signature scheme and the event list) in events.ts, both exported from here too.
 *
 * The public spec leaves most of these "not shown"; the project's API contract fixes them.
 * Each entry carries its label: 'documented' (stated by the public spec) or 'assumed' (fixed by
 * the contract). Adapting to the real service should be a change to this folder alone.
 */

import type { Scope } from './scopes';

export type ContractLabel = 'documented' | 'assumed';

export const API_VERSION_PREFIX = '/v1';

// ---------------------------------------------------------------------------------------------
// Authentication and key formats
// ---------------------------------------------------------------------------------------------

/** Key prefixes (documented) and the secret part (assumed: 16+ characters of [A-Za-z0-9]). */
export const KEY_PREFIXES = {
	current: ['svc_live_', 'svc_test_'],
	legacy: ['ok_live_', 'ok_test_'],
} as const;
export const KEY_SECRET_PATTERN = '[A-Za-z0-9]{16,}';
export const API_KEY_PATTERN = new RegExp(`^(svc|ok)_(live|test)_${KEY_SECRET_PATTERN}$`);
export const ACCEPTED_KEY_FORMATS_TEXT =
	'svc_live_ or svc_test_ followed by 16 or more letters and digits (legacy ok_live_ and ok_test_ keys still work until rotated)';

/** Headers reserved for the dashboard's proxy: an integration must never send them (documented). */
export const FORBIDDEN_REQUEST_HEADERS = ['x-api-key'] as const;

// ---------------------------------------------------------------------------------------------
// Endpoints
// ---------------------------------------------------------------------------------------------

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/**
 * 'required': the service refuses the write without one. 'sent': the connector always sends
 * one, whether or not the service insists. 'none': reads and deletes.
 */
export type IdempotencyRule = 'required' | 'sent' | 'none';

export interface EndpointContract {
	method: HttpMethod;
	/** Path template; `{name}` placeholders are filled from path parameters. */
	path: string;
	/** null: any valid key. */
	scope: Scope | null;
	idempotency: IdempotencyRule;
	/** Whether the method and path are stated by the public spec. */
	label: ContractLabel;
	/** Whether the response is a `{ data, next_cursor }` page. */
	paginated?: true;
}

export const ENDPOINTS = {
	getMe: { method: 'GET', path: '/v1/me', scope: null, idempotency: 'none', label: 'documented' },
	upsertLead: {
		method: 'POST',
		path: '/v1/leads',
		scope: 'leads:write',
		idempotency: 'required',
		label: 'assumed',
	},
	listLeads: {
		method: 'GET',
		path: '/v1/leads',
		scope: 'leads:read',
		idempotency: 'none',
		label: 'assumed',
		paginated: true,
	},
	getLead: {
		method: 'GET',
		path: '/v1/leads/{lead_id}',
		scope: 'leads:read',
		idempotency: 'none',
		label: 'assumed',
	},
	listThreads: {
		method: 'GET',
		path: '/v1/threads',
		scope: 'conversations:read',
		idempotency: 'none',
		label: 'assumed',
		paginated: true,
	},
	getThread: {
		method: 'GET',
		path: '/v1/threads/{thread_id}',
		scope: 'conversations:read',
		idempotency: 'none',
		label: 'assumed',
	},
	listMessages: {
		method: 'GET',
		path: '/v1/threads/{thread_id}/messages',
		scope: 'conversations:read',
		idempotency: 'none',
		label: 'assumed',
		paginated: true,
	},
	assistantTakeover: {
		method: 'POST',
		path: '/v1/leads/{lead_id}/assistant-takeover',
		scope: 'conversations:write',
		idempotency: 'sent',
		label: 'documented',
	},
	listCampaigns: {
		method: 'GET',
		path: '/v1/campaigns',
		scope: 'campaigns:read',
		idempotency: 'none',
		label: 'assumed',
		paginated: true,
	},
	getCampaign: {
		method: 'GET',
		path: '/v1/campaigns/{campaign_id}',
		scope: 'campaigns:read',
		idempotency: 'none',
		label: 'assumed',
	},
	dispatchCampaign: {
		method: 'POST',
		path: '/v1/campaigns/{campaign_id}/dispatch',
		scope: 'campaigns:danger',
		idempotency: 'required',
		label: 'assumed',
	},
	createSubscription: {
		method: 'POST',
		path: '/v1/webhook-subscriptions',
		scope: 'webhooks:write',
		idempotency: 'sent',
		label: 'documented',
	},
	listSubscriptions: {
		method: 'GET',
		path: '/v1/webhook-subscriptions',
		scope: 'webhooks:write',
		idempotency: 'none',
		label: 'assumed',
		paginated: true,
	},
	getSubscription: {
		method: 'GET',
		path: '/v1/webhook-subscriptions/{subscription_id}',
		scope: 'webhooks:write',
		idempotency: 'none',
		label: 'assumed',
	},
	deleteSubscription: {
		method: 'DELETE',
		path: '/v1/webhook-subscriptions/{subscription_id}',
		scope: 'webhooks:write',
		idempotency: 'none',
		label: 'assumed',
	},
	/** Needs the read scope of each kind asked for (EVENT_KIND_READ_SCOPES), not one scope. */
	listEvents: {
		method: 'GET',
		path: '/v1/events',
		scope: null,
		idempotency: 'none',
		label: 'assumed',
	},
} as const satisfies Record<string, EndpointContract>;

export type EndpointName = keyof typeof ENDPOINTS;

/** Fills `{name}` placeholders, encoding each value as one path segment. */
export function buildPath(template: string, params: Record<string, string> = {}): string {
	return template.replace(/\{(\w+)\}/g, (_match, name: string) => {
		const value = params[name];
		if (value === undefined || value === '') {
			throw new Error(`Missing path parameter "${name}" for ${template}`);
		}
		return encodeURIComponent(value);
	});
}

/**
 * Paths of the dashboard pages that show a lead, a thread or a campaign (assumed), so a user can
 * paste a page's URL into a resource picker.
 */
export const DASHBOARD_PATHS = {
	lead: 'leads',
	thread: 'conversations',
	campaign: 'campaigns',
} as const;

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Set by the service when it replays the first response of an idempotent write (assumed). */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How long the service remembers an idempotency key (assumed). */
export const IDEMPOTENCY_WINDOW_HOURS = 24;

// ---------------------------------------------------------------------------------------------
// Lists
// ---------------------------------------------------------------------------------------------

export const LIST_LIMIT_MIN = 1;
export const LIST_LIMIT_MAX = 100;
export const LIST_QUERY = { limit: 'limit', cursor: 'cursor' } as const;
/** Filters accepted by GET /v1/leads (assumed) and GET /v1/threads (lead_id, assumed). */
export const LEAD_LIST_FILTERS = ['email', 'external_id', 'source'] as const;
export const THREAD_LIST_FILTERS = ['lead_id'] as const;

export interface ListPage<T> {
	data: T[];
	next_cursor: string | null;
}

// ---------------------------------------------------------------------------------------------
// Shapes (assumed unless noted)
// ---------------------------------------------------------------------------------------------

export interface Me {
	account: { id: string; name: string };
	/** `scopes` may be absent: a client must still work without it. */
	key: { prefix: string; environment: 'live' | 'test'; scopes?: Scope[]; legacy: boolean };
}

/** Lead fields the service sets itself; a client never writes them. */
export const LEAD_READ_ONLY_FIELDS = ['id', 'created_at', 'updated_at'] as const;
/** Lead fields a client may write; `custom_fields` is documented, the rest assumed. */
export const LEAD_WRITABLE_FIELDS = [
	'email',
	'phone',
	'first_name',
	'last_name',
	'external_id',
	'source',
] as const;
export type LeadWritableField = (typeof LEAD_WRITABLE_FIELDS)[number];
/** Upsert matches an existing lead on the first of these that the body carries. */
export const LEAD_MATCH_ORDER: readonly LeadWritableField[] = ['external_id', 'email', 'phone'];

export const CONSENT_STATUSES = ['granted', 'denied'] as const;
export type ConsentStatus = (typeof CONSENT_STATUSES)[number];
/** Consent is recorded in custom_fields (documented) under this key, with this shape (assumed). */
export const CONSENT_FIELD = 'consent';
export interface Consent {
	status: ConsentStatus;
	channel?: string;
	recorded_at?: string;
	source?: string;
}

export interface Lead {
	id: string;
	email: string | null;
	phone: string | null;
	first_name: string | null;
	last_name: string | null;
	external_id: string | null;
	source: string | null;
	custom_fields: Record<string, unknown>;
	created_at: string;
	updated_at: string;
}

export interface Thread {
	id: string;
	lead_id: string;
	channel: string;
	status: string;
	last_message_at: string | null;
}

export interface Message {
	id: string;
	thread_id: string;
	direction: 'inbound' | 'outbound';
	content: string;
	masked: boolean;
	created_at: string;
}

export interface Campaign {
	id: string;
	name: string;
	status: string;
	updated_at: string;
}

/**
 * Campaign statuses that mean a person approved the campaign (assumed: the spec calls dispatch "the
 * approved dispatch" but shows no statuses). A dispatched campaign is `sending`, so a later dispatch
 * to more leads still counts as approved. Any other status (`draft`, or one this list does not know)
 * is refused by the node unless a person allowed it in the node.
 */
export const APPROVED_CAMPAIGN_STATUSES: readonly string[] = ['approved', 'active', 'sending'];

export interface DispatchResult {
	campaign_id: string;
	dispatch_id: string;
	status: 'queued';
}

export interface TakeoverResult {
	lead_id: string;
	status: 'assistant_active';
	/** The greeting is sent only when the service's gates are approved (documented). */
	greeting: { sent: boolean; reason?: string };
}

export interface Subscription {
	id: string;
	url: string;
	events: string[];
	created_at: string;
	/** Only in the creation response: the signing secret, shown once. */
	secret?: string;
}

/** Known event kinds (documented). The full list is not shown: unknown kinds pass through. */
export const KNOWN_EVENT_KINDS = ['lead.created', 'campaign.updated'] as const;
export type KnownEventKind = (typeof KNOWN_EVENT_KINDS)[number];
/** Subscription URLs must be https (documented). */
export const SUBSCRIPTION_URL_PROTOCOL = 'https:';

// ---------------------------------------------------------------------------------------------
// Errors (assumed)
// ---------------------------------------------------------------------------------------------

export interface ApiErrorBody {
	error: { code: string; message: string; required_scope?: string; request_id?: string };
}

export const ERROR_CODES = {
	invalidRequest: 'invalid_request',
	invalidApiKey: 'invalid_api_key',
	missingScope: 'missing_scope',
	notFound: 'not_found',
	idempotencyInProgress: 'idempotency_in_progress',
	idempotencyKeyReused: 'idempotency_key_reused',
	validationFailed: 'validation_failed',
	rateLimited: 'rate_limited',
	serverError: 'server_error',
	/** 410 from the event list: `after` names an event the service no longer keeps (assumed). */
	eventExpired: 'event_expired',
} as const;

/** Statuses worth retrying with the same idempotency key; everything else fails at once. */
export const RETRYABLE_STATUSES = [409, 429, 500, 502, 503, 504] as const;
export const RETRY_AFTER_HEADER = 'Retry-After';

export * from './events';
export * from './scopes';
