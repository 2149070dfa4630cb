import { badRequest } from './errors';

interface Bucket {
	tokens: number;
	refilledAt: number;
}

/**
 * A token bucket per API key: `requestsPerSecond` tokens, refilled continuously. Uses the real
 * monotonic clock by default, since a client waits out Retry-After in real time; tests may give
 * one they move themselves.
 */
export class RateLimiter {
	private perSecond: number | null = null;
	private readonly buckets = new Map<string, Bucket>();

	constructor(private readonly clock: () => number = () => performance.now()) {}

	get requestsPerSecond(): number | null {
		return this.perSecond;
	}

	setRate(requestsPerSecond: unknown): number | null {
		if (
			requestsPerSecond !== null &&
			(typeof requestsPerSecond !== 'number' ||
				!(requestsPerSecond > 0) ||
				!Number.isFinite(requestsPerSecond))
		) {
			throw badRequest(
				'requestsPerSecond must be a positive number, or null to turn the limit off',
			);
		}
		this.perSecond = requestsPerSecond;
		this.buckets.clear();
		return this.perSecond;
	}

	/** null when the request may go ahead; otherwise the seconds to wait (whole, at least 1). */
	take(apiKey: string): number | null {
		const rate = this.perSecond;
		if (rate === null) return null;
		const now = this.clock();
		const capacity = Math.max(1, rate);
		const bucket = this.buckets.get(apiKey) ?? { tokens: capacity, refilledAt: now };
		bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.refilledAt) / 1000) * rate);
		bucket.refilledAt = now;
		this.buckets.set(apiKey, bucket);
		if (bucket.tokens >= 1) {
			bucket.tokens -= 1;
			return null;
		}
		return Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
	}
}
