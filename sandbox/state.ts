import { EVENT_SIGNATURE, LIST_LIMIT_MAX } from '../nodes/Svc/contract';
import { Deliveries } from './deliveries';
import { EventLog } from './event-log';
import { FaultInjector } from './faults';
import { IdempotencyStore } from './idempotency';
import type { SandboxKey } from './keys';
import { DEMO_KEYS, KeyRing } from './keys';
import { RateLimiter } from './rate-limiter';
import { seedStore } from './seed';
import { Store } from './store';
import { RequestLog, Stats } from './telemetry';
import { Timers } from './timers';
import { isPageSize, pageSizeProblem } from './query';

export interface SandboxOptions {
	/** 0 (the default) picks a free port. */
	port?: number;
	/** Default: DEMO_KEYS. */
	keys?: SandboxKey[];
	/** The most items a list page holds, whatever `limit` asks for (default 100). */
	maxPageSize?: number;
	/** Accept https subscription URLs on loopback hosts, refused by default like a real service would (SSRF). */
	allowLoopbackWebhooks?: boolean;
	/** An extra PEM CA that deliveries trust, e.g. for a receiver on loopback with a generated certificate. */
	trustedCa?: string | Buffer;
	/** Defaults: the contract's 15 s timeout; retries after 1 s, 5 s, 30 s and 2 min. */
	delivery?: { timeoutMs?: number; retryDelaysMs?: number[] };
	/** Load the demo data (default true). */
	seed?: boolean;
	/** Milliseconds since the epoch; for timestamps and the idempotency window. */
	clock?: () => number;
	/** Milliseconds from any fixed point, never going back; for the rate limit (default performance.now). */
	monotonicClock?: () => number;
}

const DEFAULT_DELIVERY_TIMEOUT_MS = EVENT_SIGNATURE.deliveryTimeoutSeconds * 1000;
const DEFAULT_RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000];

function checkPageSize(value: number): number {
	if (!isPageSize(value)) throw new RangeError(pageSizeProblem('maxPageSize'));
	return value;
}

/** Everything the sandbox holds; the HTTP API, the admin API and tests all work on this. */
export class SandboxState {
	readonly clock: () => number;
	readonly maxPageSize: number;
	readonly allowLoopbackWebhooks: boolean;
	readonly keys: KeyRing;
	readonly store = new Store();
	readonly faults = new FaultInjector();
	readonly rateLimiter: RateLimiter;
	readonly idempotency: IdempotencyStore;
	readonly requests = new RequestLog();
	readonly stats = new Stats();
	readonly deliveries: Deliveries;
	/** What `GET /v1/events` lists; the deliveries add every event they create. */
	readonly eventLog: EventLog;
	/** Injected latency, cancelled on close. */
	readonly timers = new Timers();
	private readonly seed: boolean;

	constructor(options: SandboxOptions = {}) {
		this.clock = options.clock ?? Date.now;
		this.maxPageSize = checkPageSize(options.maxPageSize ?? LIST_LIMIT_MAX);
		this.allowLoopbackWebhooks = options.allowLoopbackWebhooks ?? false;
		this.seed = options.seed ?? true;
		this.keys = new KeyRing(options.keys ?? DEMO_KEYS);
		this.rateLimiter = new RateLimiter(options.monotonicClock);
		this.idempotency = new IdempotencyStore(this.clock);
		this.eventLog = new EventLog(this.clock);
		this.deliveries = new Deliveries(
			{
				timeoutMs: options.delivery?.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
				retryDelaysMs: options.delivery?.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
				trustedCa: options.trustedCa,
			},
			this.store.subscriptions,
			this.clock,
			this.eventLog,
		);
		if (this.seed) seedStore(this.store);
	}

	now(): string {
		return new Date(this.clock()).toISOString();
	}

	/** Back to the state at start: data, keys, faults, rate limit, logs and counters. */
	reset(): void {
		this.store.clear();
		if (this.seed) seedStore(this.store);
		this.keys.reset();
		this.faults.clear();
		this.rateLimiter.setRate(null);
		this.idempotency.clear();
		this.requests.clear();
		this.stats.reset();
		this.deliveries.reset();
	}

	/** Resolves once every delivery has succeeded or used up its retries. */
	waitForDeliveries(): Promise<void> {
		return this.deliveries.idle();
	}

	close(): void {
		this.timers.cancelAll();
		this.deliveries.close();
	}
}
