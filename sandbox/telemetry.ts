/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import type { IncomingHttpHeaders } from 'node:http';

import type { FaultOutcome } from './faults';

/** One request as the sandbox received it, for tests that check what a client really sent. */
export interface RecordedRequest {
	requestId: string;
	time: string;
	method: string;
	path: string;
	/** "POST /v1/leads", or null when no route matched. */
	route: string | null;
	query: Record<string, string>;
	/** As received; Node gives the names in lower case. */
	headers: IncomingHttpHeaders;
	rawBody: string;
	/** The parsed JSON body, or null when there was none or it did not parse. */
	body: unknown;
	/** null while running, and for requests answered by a reset or a hang. */
	status: number | null;
	replayed: boolean;
	/** The injected fault, if any. */
	fault: Exclude<FaultOutcome['kind'], 'none'> | null;
	durationMs: number | null;
}

const DEFAULT_LOG_CAP = 50_000;

/** The most recent requests; trimmed in batches so recording stays O(1) on average. */
export class RequestLog {
	private entries: RecordedRequest[] = [];

	constructor(private readonly cap = DEFAULT_LOG_CAP) {}

	add(entry: RecordedRequest): void {
		this.entries.push(entry);
		if (this.entries.length >= this.cap * 2) this.entries = this.entries.slice(-this.cap);
	}

	all(): RecordedRequest[] {
		return this.entries.slice(-this.cap);
	}

	clear(): void {
		this.entries = [];
	}
}

export interface RouteStats {
	requests: number;
	/** By status, or by "reset" / "hang" / "aborted" when no status was sent. */
	outcomes: Record<string, number>;
}

export interface SandboxStats {
	leadsCreated: number;
	leadsUpdated: number;
	dispatches: number;
	takeovers: number;
	subscriptionsCreated: number;
	requests: number;
	replays: number;
	faultsInjected: number;
	/** The most /v1 requests in progress at the same moment since the last reset. */
	maxInFlight: number;
	inFlight: number;
	byRoute: Record<string, RouteStats>;
}

type Counter =
	| 'leadsCreated'
	| 'leadsUpdated'
	| 'dispatches'
	| 'takeovers'
	| 'subscriptionsCreated'
	| 'replays'
	| 'faultsInjected';

function zeroCounters(): Record<Counter | 'requests', number> {
	return {
		leadsCreated: 0,
		leadsUpdated: 0,
		dispatches: 0,
		takeovers: 0,
		subscriptionsCreated: 0,
		requests: 0,
		replays: 0,
		faultsInjected: 0,
	};
}

export class Stats {
	private counters = zeroCounters();
	private byRoute = new Map<string, RouteStats>();
	private inFlight = 0;
	private maxInFlight = 0;

	count(counter: Counter): void {
		this.counters[counter]++;
	}

	requestStarted(): void {
		this.counters.requests++;
		this.inFlight++;
		if (this.inFlight > this.maxInFlight) this.maxInFlight = this.inFlight;
	}

	requestEnded(route: string, outcome: string): void {
		this.inFlight--;
		let stats = this.byRoute.get(route);
		if (!stats) {
			stats = { requests: 0, outcomes: {} };
			this.byRoute.set(route, stats);
		}
		stats.requests++;
		stats.outcomes[outcome] = (stats.outcomes[outcome] ?? 0) + 1;
	}

	/** Requests still running keep counting as in flight. */
	reset(): void {
		this.counters = zeroCounters();
		this.byRoute = new Map();
		this.maxInFlight = this.inFlight;
	}

	snapshot(): SandboxStats {
		return {
			...this.counters,
			maxInFlight: this.maxInFlight,
			inFlight: this.inFlight,
			byRoute: Object.fromEntries(
				[...this.byRoute].map(([route, stats]) => [
					route,
					{ requests: stats.requests, outcomes: { ...stats.outcomes } },
				]),
			),
		};
	}
}
