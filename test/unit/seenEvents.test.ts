import type { IDataObject } from 'n8n-workflow';

import { ProcessClaims, recordIfNew } from '../../nodes/Svc/trigger/seenEvents';

describe('recordIfNew', () => {
	it('reports an id once, then as a duplicate', () => {
		const data: IDataObject = {};
		expect(recordIfNew(data, 'evt_1', 1000)).toBe(true);
		expect(recordIfNew(data, 'evt_1', 2000)).toBe(false);
		expect(recordIfNew(data, 'evt_2', 3000)).toBe(true);
	});

	it('keeps at most maxCount ids, dropping the oldest', () => {
		const data: IDataObject = {};
		const limits = { maxCount: 3, maxAgeMs: 1e9 };
		for (let i = 1; i <= 5; i++) recordIfNew(data, `evt_${i}`, i, limits);
		expect((data.seenEvents as unknown[]).length).toBe(3);
		expect(recordIfNew(data, 'evt_1', 10, limits)).toBe(true);
		expect(recordIfNew(data, 'evt_5', 10, limits)).toBe(false);
	});

	it('forgets ids older than maxAgeMs', () => {
		const data: IDataObject = {};
		const limits = { maxCount: 100, maxAgeMs: 1000 };
		recordIfNew(data, 'evt_old', 0, limits);
		expect(recordIfNew(data, 'evt_old', 500, limits)).toBe(false);
		expect(recordIfNew(data, 'evt_other', 2000, limits)).toBe(true);
		expect(recordIfNew(data, 'evt_old', 2001, limits)).toBe(true);
	});

	it('survives a JSON round trip, as static data is stored', () => {
		const data: IDataObject = {};
		recordIfNew(data, 'evt_1', 1);
		const restored = JSON.parse(JSON.stringify(data)) as IDataObject;
		expect(recordIfNew(restored, 'evt_1', 2)).toBe(false);
	});
});

describe('ProcessClaims', () => {
	it('grants the first claim of an id per scope and refuses repeats', () => {
		const claims = new ProcessClaims({ maxCount: 100, maxAgeMs: 1000 });
		expect(claims.claim('wf1/node', 'evt_1', 0)).toBe(true);
		expect(claims.claim('wf1/node', 'evt_1', 1)).toBe(false);
		expect(claims.claim('wf2/node', 'evt_1', 2)).toBe(true);
		expect(claims.claim('wf1/node', 'evt_2', 3)).toBe(true);
	});

	it('forgets claims past the age limit and beyond the count, oldest first', () => {
		const claims = new ProcessClaims({ maxCount: 2, maxAgeMs: 1000 });
		claims.claim('s', 'a', 0);
		claims.claim('s', 'b', 10);
		claims.claim('s', 'c', 20);
		expect(claims.claim('s', 'a', 30)).toBe(true);
		expect(claims.claim('s', 'c', 40)).toBe(false);
		expect(claims.claim('s', 'c', 2000)).toBe(true);
	});
});
