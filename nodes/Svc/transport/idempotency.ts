import { createHash } from 'node:crypto';

import { UUID_PATTERN } from '../contract';

export interface WriteIdentity {
	executionId: string;
	nodeId: string;
	runIndex: number;
	itemIndex: number;
	/** Endpoint name and filled path: two different writes for one item never share a key. */
	operation: string;
	body: unknown;
}

/** JSON with object keys sorted, so the same body always hashes the same. */
export function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.entries(value as Record<string, unknown>)
			.filter(([, entry]) => entry !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

/**
 * One UUID per logical write. It depends only on where the write happens in the execution and
 * on its body, so the transport's own retries and n8n's "Retry On Fail" (which re-runs the node
 * in the same execution and run) send the same key, and the service applies the write once.
 */
export function deriveIdempotencyKey(identity: WriteIdentity): string {
	return uuidFromHash([
		identity.executionId,
		identity.nodeId,
		identity.runIndex,
		identity.itemIndex,
		identity.operation,
		identity.body,
	]);
}

/**
 * The key for a write the user identifies with their own text (an order id, a form submission
 * id): the same text and operation give the same key in any execution, so re-running a workflow
 * after a crash replays what was already applied instead of applying it twice.
 */
export function idempotencyKeyFromText(operation: string, text: string): string {
	return uuidFromHash(['user-key', operation, text]);
}

/**
 * The key for a write that must not happen twice by accident, whoever runs it again: the same
 * operation with the same body gets the same key in any execution, so within the service's
 * idempotency window a second run is answered with the first write instead of applying it again.
 */
export function idempotencyKeyFromContent(operation: string, body: unknown): string {
	return uuidFromHash(['same-content', operation, body]);
}

/** An RFC 9562 version 8 (custom) UUID from the SHA-256 of the canonical JSON of `parts`. */
function uuidFromHash(parts: unknown[]): string {
	const bytes = createHash('sha256').update(canonicalJson(parts)).digest().subarray(0, 16);
	bytes[6] = (bytes[6] & 0x0f) | 0x80;
	bytes[8] = (bytes[8] & 0x3f) | 0x80;
	const hex = bytes.toString('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function isUuid(value: string): boolean {
	return UUID_PATTERN.test(value);
}
