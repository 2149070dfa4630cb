import { createHash } from 'node:crypto';

import { IDEMPOTENCY_WINDOW_HOURS } from '../nodes/Svc/contract';
import type { JsonResponse } from './body';
import { canonicalJson } from './json';

interface KeyRecord {
	fingerprint: string;
	expiresAt: number;
	/** Undefined while the first request is still running. */
	response?: JsonResponse;
}

export type Claim =
	| { kind: 'claimed'; complete(response: JsonResponse): void; release(): void }
	| { kind: 'replay'; response: JsonResponse }
	| { kind: 'reused' }
	| { kind: 'running' };

const WINDOW_MS = IDEMPOTENCY_WINDOW_HOURS * 3600 * 1000;
/** Expired records are dropped on a write at most this often: a sweep walks every record. */
const SWEEP_EVERY_MS = 60 * 1000;

/** What makes two writes "the same": the route and the body, whatever its key order. */
export function fingerprint(routeKey: string, body: unknown): string {
	return createHash('sha256')
		.update(routeKey)
		.update('\n')
		.update(canonicalJson(body))
		.digest('hex');
}

/**
 * Idempotency records per (API key, Idempotency-Key), kept for the contract's window. Expired
 * ones are swept on writes, with no timer, so a long-running sandbox does not keep them all.
 */
export class IdempotencyStore {
	private readonly records = new Map<string, KeyRecord>();
	private lastSweep = Number.NEGATIVE_INFINITY;

	constructor(private readonly clock: () => number) {}

	/** Records held, expired or not: lets a test see the sweep. */
	get size(): number {
		return this.records.size;
	}

	claim(apiKey: string, idempotencyKey: string, print: string): Claim {
		const id = `${apiKey}\n${idempotencyKey}`;
		const now = this.clock();
		this.sweep(now);
		const existing = this.records.get(id);
		if (existing && existing.expiresAt > now) {
			if (existing.fingerprint !== print) return { kind: 'reused' };
			return existing.response
				? { kind: 'replay', response: existing.response }
				: { kind: 'running' };
		}
		const record: KeyRecord = { fingerprint: print, expiresAt: now + WINDOW_MS };
		this.records.set(id, record);
		return {
			kind: 'claimed',
			complete: (response) => {
				// A copy: later writes to the stored objects must not change what a replay shows.
				record.response = structuredClone(response);
			},
			// The write did not happen (fault, crash): a retry with the key must be able to run.
			release: () => {
				if (this.records.get(id) === record) this.records.delete(id);
			},
		};
	}

	clear(): void {
		this.records.clear();
	}

	private sweep(now: number): void {
		if (now - this.lastSweep < SWEEP_EVERY_MS) return;
		this.lastSweep = now;
		for (const [id, record] of this.records) {
			if (record.expiresAt <= now) this.records.delete(id);
		}
	}
}
