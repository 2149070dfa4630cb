import type { KeyObject } from 'node:crypto';
import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';

import { EVENT_SIGNATURE, signedPrefix } from '../../contract';

export interface DeliveryHeaders {
	id?: string;
	timestamp?: string;
	signature?: string;
}

export type Verification = { valid: true } | { valid: false; reason: string };

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The HMAC key inside a `whsec_<base64>` secret; undefined when the secret is malformed. The
 * trigger decodes it once and verifies with the key object (making one from a Buffer on every
 * HMAC is a large share of verifying a small body).
 */
export function secretKey(secret: string): KeyObject | undefined {
	const encoded = secret.startsWith(EVENT_SIGNATURE.secretPrefix)
		? secret.slice(EVENT_SIGNATURE.secretPrefix.length)
		: secret;
	const bytes = BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : undefined;
	return bytes?.length ? createSecretKey(bytes) : undefined;
}

/**
 * Standard Webhooks v1 verification over the raw body: some `v1,<base64>` entry of the
 * signature header must equal HMAC-SHA256(key, "<id>.<timestamp>.<body>") (compared in constant
 * time), and the timestamp must be within the tolerance of `nowSeconds` either way. Reasons
 * never contain the secret or the expected signature.
 */
export function verifyDelivery(
	secret: string | KeyObject,
	headers: DeliveryHeaders,
	rawBody: Buffer | string,
	nowSeconds: number,
	toleranceSeconds: number = EVENT_SIGNATURE.toleranceSeconds,
): Verification {
	const { id, timestamp, signature } = headers;
	if (!id || !timestamp || !signature) {
		return {
			valid: false,
			reason: `missing ${[!id && 'webhook-id', !timestamp && 'webhook-timestamp', !signature && 'webhook-signature'].filter(Boolean).join(', ')} header`,
		};
	}
	if (!/^\d{1,15}$/.test(timestamp))
		return { valid: false, reason: 'webhook-timestamp is not a Unix time in seconds' };
	const age = nowSeconds - Number(timestamp);
	if (age > toleranceSeconds) return { valid: false, reason: 'webhook-timestamp is too old' };
	if (age < -toleranceSeconds)
		return { valid: false, reason: 'webhook-timestamp is in the future' };
	const key = typeof secret === 'string' ? secretKey(secret) : secret;
	if (!key) return { valid: false, reason: 'the stored signing secret is malformed' };

	const expected = createHmac(EVENT_SIGNATURE.algorithm, key)
		.update(signedPrefix(id, timestamp))
		.update(rawBody)
		.digest();
	const prefix = `${EVENT_SIGNATURE.version},`;
	for (const entry of signature.split(' ')) {
		if (!entry.startsWith(prefix)) continue;
		const encoded = entry.slice(prefix.length);
		if (!BASE64.test(encoded)) continue;
		const given = Buffer.from(encoded, 'base64');
		if (given.length === expected.length && timingSafeEqual(given, expected))
			return { valid: true };
	}
	return { valid: false, reason: 'no webhook-signature entry matches' };
}
