import type { KeyObject } from 'node:crypto';
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

import { secretKey } from './signature';

/**
 * The subscription's signing secret is kept in the trigger's static data only sealed
 * (AES-256-GCM) under a key derived from the credential's API key. n8n 1.x copies static data
 * into every execution, and both majors keep it in the database: without the API key, which
 * n8n stores encrypted, the sealed value is useless.
 */
const FORMAT = 'v1';
const INFO = 'n8n-nodes-svc signing secret';
const IV_BYTES = 12;
const TAG_BYTES = 16;

function sealingKey(apiKey: string, subscriptionId: string): Buffer {
	return Buffer.from(hkdfSync('sha256', apiKey, subscriptionId, INFO, 32));
}

/** `v1.<iv>.<ciphertext>.<tag>`, base64url; the subscription id is bound in as associated data. */
export function sealSecret(apiKey: string, subscriptionId: string, secret: string): string {
	const iv = randomBytes(IV_BYTES);
	const cipher = createCipheriv('aes-256-gcm', sealingKey(apiKey, subscriptionId), iv, {
		authTagLength: TAG_BYTES,
	});
	cipher.setAAD(Buffer.from(subscriptionId));
	const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
	return [FORMAT, iv, sealed, cipher.getAuthTag()]
		.map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
		.join('.');
}

/** The secret, or undefined when `sealed` was not sealed with this API key for this subscription. */
export function openSecret(
	apiKey: string,
	subscriptionId: string,
	sealed: string,
): string | undefined {
	const [format, iv, data, tag] = sealed.split('.');
	if (format !== FORMAT || !iv || data === undefined || !tag) return undefined;
	try {
		const decipher = createDecipheriv(
			'aes-256-gcm',
			sealingKey(apiKey, subscriptionId),
			Buffer.from(iv, 'base64url'),
			{ authTagLength: TAG_BYTES },
		);
		decipher.setAAD(Buffer.from(subscriptionId));
		decipher.setAuthTag(Buffer.from(tag, 'base64url'));
		return Buffer.concat([
			decipher.update(Buffer.from(data, 'base64url')),
			decipher.final(),
		]).toString('utf8');
	} catch {
		return undefined;
	}
}

const CACHE_SIZE = 64;

/**
 * HMAC keys opened in this process, by sealed value. Opening needs the credential, which n8n
 * reads from its database and decrypts: once per subscription and process, not per delivery.
 */
export class OpenedKeys {
	private readonly keys = new Map<string, KeyObject>();

	get(sealed: string): KeyObject | undefined {
		return this.keys.get(sealed);
	}

	/** Opens `sealed` and keeps its HMAC key; undefined when it does not open or the secret is malformed. */
	open(apiKey: string, subscriptionId: string, sealed: string): KeyObject | undefined {
		const secret = openSecret(apiKey, subscriptionId, sealed);
		const key = secret === undefined ? undefined : secretKey(secret);
		if (!key) return undefined;
		if (this.keys.size >= CACHE_SIZE) this.keys.delete(this.keys.keys().next().value as string);
		this.keys.set(sealed, key);
		return key;
	}
}

export const openedKeys = new OpenedKeys();
