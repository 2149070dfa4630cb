/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- throwaway test values, not secrets */
import { Webhook } from 'standardwebhooks';

import { secretKey, verifyDelivery } from '../../nodes/Svc/trigger/webhook/signature';

// The Standard Webhooks project's published vector (libraries' "sign function works" test).
const VECTOR = {
	secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
	id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
	timestamp: 1614265330,
	payload: '{"test": 2432232314}',
	signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const secret = 'whsec_' + Buffer.from('a test signing secret of 32 byte').toString('base64');
const otherSecret = 'whsec_' + Buffer.from('another secret, not the right 1').toString('base64');
const now = 1_800_000_000;

function signed(body: string, options: { id?: string; timestamp?: number; with?: string } = {}) {
	const id = options.id ?? 'evt_123';
	const timestamp = options.timestamp ?? now;
	const signature = new Webhook(options.with ?? secret).sign(id, new Date(timestamp * 1000), body);
	return { id, timestamp: String(timestamp), signature };
}

describe('verifyDelivery (Standard Webhooks v1)', () => {
	const body = JSON.stringify({
		id: 'evt_123',
		type: 'lead.created',
		created_at: '2026-01-01T00:00:00Z',
		data: { id: 'lead_1' },
	});

	it('accepts the published test vector', () => {
		const headers = {
			id: VECTOR.id,
			timestamp: String(VECTOR.timestamp),
			signature: VECTOR.signature,
		};
		expect(verifyDelivery(VECTOR.secret, headers, VECTOR.payload, VECTOR.timestamp)).toEqual({
			valid: true,
		});
	});

	it('rejects the published vector with one byte of the payload changed', () => {
		const headers = {
			id: VECTOR.id,
			timestamp: String(VECTOR.timestamp),
			signature: VECTOR.signature,
		};
		expect(
			verifyDelivery(
				VECTOR.secret,
				headers,
				VECTOR.payload.replace('2432', '2433'),
				VECTOR.timestamp,
			).valid,
		).toBe(false);
	});

	it('accepts a delivery signed by the standardwebhooks package, as string or Buffer', () => {
		expect(verifyDelivery(secret, signed(body), body, now)).toEqual({ valid: true });
		expect(verifyDelivery(secret, signed(body), Buffer.from(body), now)).toEqual({ valid: true });
	});

	it('accepts when one of several signatures matches (secret rotation)', () => {
		const good = signed(body);
		const old = signed(body, { with: otherSecret });
		const header = `v1,${Buffer.alloc(32).toString('base64')} ${old.signature} ${good.signature} v2,abc`;
		expect(verifyDelivery(secret, { ...good, signature: header }, body, now)).toEqual({
			valid: true,
		});
	});

	it('rejects a tampered body, including the same JSON with keys re-ordered', () => {
		const headers = signed(body);
		expect(verifyDelivery(secret, headers, body.replace('lead_1', 'lead_2'), now).valid).toBe(
			false,
		);
		const reordered = JSON.stringify({
			type: 'lead.created',
			id: 'evt_123',
			created_at: '2026-01-01T00:00:00Z',
			data: { id: 'lead_1' },
		});
		expect(verifyDelivery(secret, headers, reordered, now).valid).toBe(false);
	});

	it('rejects a delivery signed with another secret', () => {
		expect(verifyDelivery(secret, signed(body, { with: otherSecret }), body, now)).toEqual({
			valid: false,
			reason: 'no webhook-signature entry matches',
		});
	});

	it('rejects a changed webhook-id (the id is part of what is signed)', () => {
		expect(verifyDelivery(secret, { ...signed(body), id: 'evt_999' }, body, now).valid).toBe(false);
	});

	it('accepts timestamps up to 5 minutes either way and rejects beyond', () => {
		expect(verifyDelivery(secret, signed(body, { timestamp: now - 300 }), body, now).valid).toBe(
			true,
		);
		expect(verifyDelivery(secret, signed(body, { timestamp: now + 300 }), body, now).valid).toBe(
			true,
		);
		expect(verifyDelivery(secret, signed(body, { timestamp: now - 301 }), body, now)).toEqual({
			valid: false,
			reason: 'webhook-timestamp is too old',
		});
		expect(verifyDelivery(secret, signed(body, { timestamp: now + 301 }), body, now)).toEqual({
			valid: false,
			reason: 'webhook-timestamp is in the future',
		});
	});

	it('rejects missing headers and names them', () => {
		const headers = signed(body);
		expect(verifyDelivery(secret, { ...headers, id: undefined }, body, now)).toEqual({
			valid: false,
			reason: 'missing webhook-id header',
		});
		expect(verifyDelivery(secret, { id: headers.id }, body, now)).toEqual({
			valid: false,
			reason: 'missing webhook-timestamp, webhook-signature header',
		});
	});

	it('rejects a non-numeric timestamp, a wrong version prefix, bad base64 and a truncated signature', () => {
		const headers = signed(body);
		expect(verifyDelivery(secret, { ...headers, timestamp: 'yesterday' }, body, now).valid).toBe(
			false,
		);
		expect(
			verifyDelivery(
				secret,
				{ ...headers, signature: headers.signature.replace('v1,', 'v2,') },
				body,
				now,
			).valid,
		).toBe(false);
		expect(
			verifyDelivery(secret, { ...headers, signature: 'v1,@@@not base64@@@' }, body, now).valid,
		).toBe(false);
		expect(
			verifyDelivery(secret, { ...headers, signature: headers.signature.slice(0, 20) }, body, now)
				.valid,
		).toBe(false);
		expect(verifyDelivery(secret, { ...headers, signature: 'v1,' }, body, now).valid).toBe(false);
	});

	it('rejects an empty body unless that empty body is what was signed', () => {
		expect(verifyDelivery(secret, signed(body), '', now).valid).toBe(false);
		expect(verifyDelivery(secret, signed(''), '', now).valid).toBe(true);
	});

	it('never puts the secret or the expected signature into its reason', () => {
		const headers = signed(body, { with: otherSecret });
		const result = verifyDelivery(secret, headers, body, now);
		const expected = signed(body).signature.slice(3);
		expect(JSON.stringify(result)).not.toContain(secret.slice(6));
		expect(JSON.stringify(result)).not.toContain(expected);
	});

	it('treats a malformed stored secret as a failure, not an exception', () => {
		expect(secretKey('whsec_***')).toBeUndefined();
		expect(verifyDelivery('whsec_***', signed(body), body, now)).toEqual({
			valid: false,
			reason: 'the stored signing secret is malformed',
		});
	});
});
