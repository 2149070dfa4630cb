import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';

import { API_KEY_PATTERN } from '../../nodes/Svc/contract';
import { checkApiKey, deriveIdempotencyKey, isUuid } from '../../nodes/Svc/transport';
import { verifyDelivery } from '../../nodes/Svc/trigger/webhook/signature';

const secretBytes = fc.uint8Array({ minLength: 16, maxLength: 64 });
const now = 1_800_000_000;

describe('signature verifier properties', () => {
	it('accepts every delivery the reference implementation signs', () => {
		fc.assert(
			fc.property(
				secretBytes,
				fc.string(),
				fc.stringMatching(/^[A-Za-z0-9_]{1,40}$/),
				fc.integer({ min: -300, max: 300 }),
				(key, body, id, skew) => {
					const secret = `whsec_${Buffer.from(key).toString('base64')}`;
					const signature = new Webhook(secret).sign(id, new Date((now + skew) * 1000), body);
					return verifyDelivery(secret, { id, timestamp: String(now + skew), signature }, body, now)
						.valid;
				},
			),
		);
	});

	it('never accepts a body other than the signed one, and never throws on arbitrary headers', () => {
		fc.assert(
			fc.property(
				secretBytes,
				fc.string(),
				fc.string(),
				fc.option(fc.string()),
				fc.option(fc.string()),
				(key, body, other, timestamp, signatureGarbage) => {
					const secret = `whsec_${Buffer.from(key).toString('base64')}`;
					const signature = new Webhook(secret).sign('evt_1', new Date(now * 1000), body);
					const forged = verifyDelivery(
						secret,
						{ id: 'evt_1', timestamp: String(now), signature },
						other,
						now,
					);
					const garbage = verifyDelivery(
						secret,
						{
							id: 'evt_1',
							timestamp: timestamp ?? undefined,
							signature: signatureGarbage ?? undefined,
						},
						body,
						now,
					);
					return (other === body || !forged.valid) && !garbage.valid;
				},
			),
		);
	});

	it('never accepts a signature made with another secret', () => {
		fc.assert(
			fc.property(secretBytes, secretBytes, fc.string(), (a, b, body) => {
				fc.pre(Buffer.compare(Buffer.from(a), Buffer.from(b)) !== 0);
				const signature = new Webhook(`whsec_${Buffer.from(b).toString('base64')}`).sign(
					'evt_1',
					new Date(now * 1000),
					body,
				);
				return !verifyDelivery(
					`whsec_${Buffer.from(a).toString('base64')}`,
					{ id: 'evt_1', timestamp: String(now), signature },
					body,
					now,
				).valid;
			}),
		);
	});
});

describe('key format validator properties', () => {
	it('accepts exactly what the contract pattern accepts, and never echoes a rejected key', () => {
		fc.assert(
			fc.property(
				fc.oneof(
					fc.string(),
					fc.stringMatching(/^(svc|ok|sk)_(live|test|prod)_[A-Za-z0-9!-]{0,30}$/),
				),
				(value) => {
					let message: string | undefined;
					try {
						checkApiKey(value);
					} catch (error) {
						message = (error as Error).message;
					}
					if (API_KEY_PATTERN.test(value.trim())) return message === undefined;
					// The part after the prefix is what would be secret; the prefix itself is named in the message.
					const secretPart = value.trim().replace(/^[a-z]+_[a-z]+_/, '');
					return message !== undefined && (secretPart.length < 12 || !message.includes(secretPart));
				},
			),
		);
	});
});

describe('idempotency key properties', () => {
	const identity = fc.record({
		executionId: fc.string(),
		nodeId: fc.string(),
		runIndex: fc.nat(),
		itemIndex: fc.nat(),
		operation: fc.string(),
		body: fc.jsonValue(),
	});

	it('is a UUID, and the same input always gives the same key', () => {
		fc.assert(
			fc.property(
				identity,
				(input) =>
					isUuid(deriveIdempotencyKey(input)) &&
					deriveIdempotencyKey(input) === deriveIdempotencyKey(structuredClone(input)),
			),
		);
	});

	it('a different body gives a different key', () => {
		fc.assert(
			fc.property(identity, fc.jsonValue(), (input, otherBody) => {
				fc.pre(JSON.stringify(otherBody) !== JSON.stringify(input.body));
				return deriveIdempotencyKey(input) !== deriveIdempotencyKey({ ...input, body: otherBody });
			}),
		);
	});
});
