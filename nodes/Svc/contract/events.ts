/** The contract's events: the delivery envelope, the signature scheme and the event list (see index.ts). */
import type { Scope } from './scopes';

// ---------------------------------------------------------------------------------------------
// Events (assumed: Standard Webhooks 1.0)
// ---------------------------------------------------------------------------------------------

export interface EventEnvelope {
	id: string;
	type: string;
	created_at: string;
	data: Record<string, unknown>;
}

export const EVENT_SIGNATURE = {
	idHeader: 'webhook-id',
	timestampHeader: 'webhook-timestamp',
	signatureHeader: 'webhook-signature',
	/** Each signature entry is `<version>,<base64>`; entries are separated by spaces. */
	version: 'v1',
	secretPrefix: 'whsec_',
	algorithm: 'sha256',
	/** A delivery's timestamp must be within this many seconds of the receiver's clock. */
	toleranceSeconds: 5 * 60,
	/** The service retries deliveries that got no 2xx within this time. */
	deliveryTimeoutSeconds: 15,
} as const;

/** What the service signs is `<webhook-id>.<webhook-timestamp>.<raw body>`: this prefix, then the body bytes. */
export function signedPrefix(id: string, timestamp: string): string {
	return `${id}.${timestamp}.`;
}

// ---------------------------------------------------------------------------------------------
// Event list (assumed: pull delivery for consumers the service cannot reach)
// ---------------------------------------------------------------------------------------------

/** `GET /v1/events` query parameters. `created_after` is ignored when `after` is given. */
export const EVENT_LIST_QUERY = {
	types: 'types',
	after: 'after',
	createdAfter: 'created_after',
	limit: 'limit',
} as const;

/** Events oldest first, in the order the service created them; the same envelopes as deliveries. */
export interface EventPage {
	data: EventEnvelope[];
	has_more: boolean;
}

/** The read scope each kind's prefix needs; a kind with another prefix passes through as it is. */
export const EVENT_KIND_READ_SCOPES: Readonly<Record<string, Scope>> = {
	lead: 'leads:read',
	campaign: 'campaigns:read',
};

/** The scope needed to read events of `kind` from the list, if the contract knows one. */
export function eventKindReadScope(kind: string): Scope | undefined {
	return EVENT_KIND_READ_SCOPES[kind.split('.')[0]];
}

/** How long the service keeps events in the list (assumed); an older `after` is answered 410. */
export const EVENT_RETENTION_DAYS = 30;
export const EVENT_EXPIRED_STATUS = 410;
