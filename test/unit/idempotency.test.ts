import { validate as isRfc9562Uuid, version as uuidVersion } from 'uuid';

import {
	canonicalJson,
	deriveIdempotencyKey,
	idempotencyKeyFromText,
	isUuid,
} from '../../nodes/Svc/transport/idempotency';

const base = {
	executionId: '42',
	nodeId: 'node-1',
	runIndex: 0,
	itemIndex: 3,
	operation: 'upsertLead',
	body: { email: 'a@example.com', custom_fields: { x: 1 } },
};

describe('deriveIdempotencyKey', () => {
	it('is a UUID and the same for the same write', () => {
		const key = deriveIdempotencyKey(base);
		expect(isUuid(key)).toBe(true);
		expect(key[14]).toBe('8');
		expect(
			deriveIdempotencyKey({ ...base, body: { custom_fields: { x: 1 }, email: 'a@example.com' } }),
		).toBe(key);
	});

	it.each([
		['execution', { executionId: '43' }],
		['node', { nodeId: 'node-2' }],
		['run', { runIndex: 1 }],
		['item', { itemIndex: 4 }],
		['operation', { operation: 'dispatchCampaign:cmp_1' }],
		['body', { body: { email: 'b@example.com', custom_fields: { x: 1 } } }],
		['nested body value', { body: { email: 'a@example.com', custom_fields: { x: 2 } } }],
	])('changes with the %s', (_what, change) => {
		expect(deriveIdempotencyKey({ ...base, ...change })).not.toBe(deriveIdempotencyKey(base));
	});
});

describe('every key the node derives is an RFC 9562 UUID of version 8 (custom), as the code says', () => {
	const keys = [
		...Array.from({ length: 200 }, (_, itemIndex) => deriveIdempotencyKey({ ...base, itemIndex })),
		...Array.from({ length: 200 }, (_, index) =>
			idempotencyKeyFromText('upsertLead', `order-${index}`),
		),
	];
	it.each(keys.slice(0, 3).concat(keys.slice(200, 203)))('%s', (key) => {
		expect({ valid: isRfc9562Uuid(key), version: uuidVersion(key) }).toEqual({
			valid: true,
			version: 8,
		});
	});
	it("all 400 of them, and the node's own check agrees", () => {
		expect(
			keys.filter((key) => !isRfc9562Uuid(key) || uuidVersion(key) !== 8 || !isUuid(key)),
		).toEqual([]);
	});
});

describe('canonicalJson', () => {
	it('sorts keys at every depth and drops undefined members', () => {
		expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: undefined } })).toBe(
			'{"a":{"d":[2,{"e":0,"f":1}]},"b":1}',
		);
	});
});
