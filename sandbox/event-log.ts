import type { EventEnvelope, EventPage, Scope } from '../nodes/Svc/contract';
import {
	ERROR_CODES,
	EVENT_EXPIRED_STATUS,
	EVENT_LIST_QUERY,
	EVENT_RETENTION_DAYS,
	eventKindReadScope,
	LIST_LIMIT_MAX,
} from '../nodes/Svc/contract';
import { ApiError, badRequest } from './errors';
import { limitParam } from './query';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface EventListSettings {
	/** false: `GET /v1/events` answers 404, as a service without the endpoint would. */
	enabled: boolean;
	/** Events older than this are no longer kept (default: the contract's 30 days). */
	retentionMs: number;
	/**
	 * The most events one page holds, whatever `limit` asks (default: the contract's 100). The
	 * contract promises no full pages, only `has_more`; a smaller cap makes a backlog span many
	 * pages with few events.
	 */
	pageSizeMax: number;
}

export const DEFAULT_EVENT_LIST_SETTINGS: EventListSettings = {
	enabled: true,
	retentionMs: EVENT_RETENTION_DAYS * DAY_MS,
	pageSizeMax: LIST_LIMIT_MAX,
};

interface EventListQuery {
	types?: string[];
	after?: string;
	createdAfter?: string;
	limit: number;
}

/**
 * Every event the sandbox created, in creation order: what `GET /v1/events` reads. An event
 * older than the retention is no longer listed, and an `after` naming it (or an id never
 * created) is answered 410, as the contract says.
 */
export class EventLog {
	private events: Array<{ envelope: EventEnvelope; createdMs: number }> = [];
	private readonly positions = new Map<string, number>();
	private settings: EventListSettings = { ...DEFAULT_EVENT_LIST_SETTINGS };

	constructor(private readonly clock: () => number) {}

	add(envelope: EventEnvelope): void {
		this.positions.set(envelope.id, this.events.length);
		this.events.push({ envelope, createdMs: Date.parse(envelope.created_at) });
	}

	get current(): EventListSettings {
		return { ...this.settings };
	}

	configure(changes: Partial<EventListSettings>): EventListSettings {
		this.settings = { ...this.settings, ...changes };
		return this.current;
	}

	/** One page for a request's query, checked against the key's scopes; throws the contract's 400, 404, 403 or 410. */
	page(search: URLSearchParams, scopes: readonly Scope[]): EventPage {
		if (!this.settings.enabled)
			throw new ApiError(404, ERROR_CODES.notFound, 'There is no endpoint GET /v1/events');
		const query = parseEventListQuery(search);
		const cutoff = this.clock() - this.settings.retentionMs;
		const kept = (index: number) => this.events[index].createdMs > cutoff;
		let start: number;
		if (query.after !== undefined) {
			const position = this.positions.get(query.after);
			if (position === undefined || !kept(position)) {
				throw new ApiError(
					EVENT_EXPIRED_STATUS,
					ERROR_CODES.eventExpired,
					`The event ${JSON.stringify(query.after)} is not kept (events are kept ${Math.round(this.settings.retentionMs / 1000)} s); resume with ${EVENT_LIST_QUERY.createdAfter}`,
				);
			}
			start = position + 1;
		} else {
			const since = query.createdAfter === undefined ? -Infinity : Date.parse(query.createdAfter);
			start = this.events.findIndex((event) => event.createdMs > since);
			if (start < 0) start = this.events.length;
		}
		const readable = this.readableKinds(query.types, scopes);
		const data: EventEnvelope[] = [];
		const pageSize = Math.min(query.limit, this.settings.pageSizeMax);
		let index = start;
		for (; index < this.events.length && data.length < pageSize; index++) {
			const { envelope } = this.events[index];
			if (kept(index) && readable(envelope.type)) data.push(envelope);
		}
		let hasMore = false;
		for (; index < this.events.length && !hasMore; index++)
			hasMore = kept(index) && readable(this.events[index].envelope.type);
		return { data, has_more: hasMore };
	}

	clear(): void {
		this.events = [];
		this.positions.clear();
		this.settings = { ...DEFAULT_EVENT_LIST_SETTINGS };
	}

	/**
	 * Which kinds the answer holds: those asked for (each one the key must be able to read), or
	 * without `types` every kind the key can read.
	 */
	private readableKinds(
		types: string[] | undefined,
		scopes: readonly Scope[],
	): (kind: string) => boolean {
		const canRead = (kind: string) => {
			const scope = eventKindReadScope(kind);
			return scope === undefined || scopes.includes(scope);
		};
		if (types === undefined) return canRead;
		for (const kind of types) {
			const scope = eventKindReadScope(kind);
			if (scope !== undefined && !scopes.includes(scope)) {
				throw new ApiError(
					403,
					ERROR_CODES.missingScope,
					`This API key lacks the ${scope} scope, which reading ${kind} events needs`,
					scope,
				);
			}
		}
		const wanted = new Set(types);
		return (kind) => wanted.has(kind);
	}
}

/** Reads `types`, `after`, `created_after` and `limit` (1..100, default 100) from a query. */
function parseEventListQuery(query: URLSearchParams): EventListQuery {
	const limit = limitParam(query, EVENT_LIST_QUERY.limit, LIST_LIMIT_MAX);
	const types = query
		.get(EVENT_LIST_QUERY.types)
		?.split(',')
		.map((kind) => kind.trim())
		.filter((kind) => kind !== '');
	const after = query.get(EVENT_LIST_QUERY.after) || undefined;
	const createdAfter = query.get(EVENT_LIST_QUERY.createdAfter) || undefined;
	if (createdAfter !== undefined && Number.isNaN(Date.parse(createdAfter)))
		throw badRequest(`${EVENT_LIST_QUERY.createdAfter} must be an ISO-8601 time`);
	return { types: types?.length ? types : undefined, after, createdAfter, limit };
}
