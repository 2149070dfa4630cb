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
		for (let i = 1; i <= 5; i++) recordIfNew(data, `evt_${i}`, i, new Map(), limits);
		expect((data.seenEvents as unknown[]).length).toBe(3);
		expect(recordIfNew(data, 'evt_1', 10, new Map(), limits)).toBe(true);
		expect(recordIfNew(data, 'evt_5', 10, new Map(), limits)).toBe(false);
	});

	it('forgets ids older than maxAgeMs', () => {
		const data: IDataObject = {};
		const limits = { maxCount: 100, maxAgeMs: 1000 };
		recordIfNew(data, 'evt_old', 0, new Map(), limits);
		expect(recordIfNew(data, 'evt_old', 500, new Map(), limits)).toBe(false);
		expect(recordIfNew(data, 'evt_other', 2000, new Map(), limits)).toBe(true);
		expect(recordIfNew(data, 'evt_old', 2001, new Map(), limits)).toBe(true);
	});

	it('survives a JSON round trip, as static data is stored', () => {
		const data: IDataObject = {};
		recordIfNew(data, 'evt_1', 1);
		const restored = JSON.parse(JSON.stringify(data)) as IDataObject;
		expect(recordIfNew(restored, 'evt_1', 2)).toBe(false);
	});

	it('writes back ids this process accepted that a concurrent save dropped from the stored list', () => {
		// Two deliveries loaded the same list; the second one's save overwrote the first one's.
		const first: IDataObject = {};
		const second: IDataObject = {};
		const knownHere = new Map<string, number>();
		knownHere.set('evt_a', 1);
		recordIfNew(first, 'evt_a', 1, knownHere);
		knownHere.set('evt_b', 2);
		recordIfNew(second, 'evt_b', 2, knownHere);
		expect((second.seenEvents as Array<{ id: string }>).map((seen) => seen.id)).toEqual(['evt_a', 'evt_b']);
		expect(recordIfNew(second, 'evt_a', 3)).toBe(false);
	});
});

describe('ProcessClaims', () => {
	it('grants the first claim of an id per scope and refuses repeats', () => {
		const claims = new ProcessClaims({ maxCount: 100, maxAgeMs: 1000 });
		expect(claims.claim('wf1/node', 'evt_1', 0)).toBe(true);
		expect(claims.claim('wf1/node', 'evt_1', 1)).toBe(false);
		expect(claims.claim('wf2/node', 'evt_1', 2)).toBe(true);
		expect(claims.claim('wf1/node', 'evt_2', 3)).toBe(true);
		expect([...claims.known('wf1/node', 4).keys()]).toEqual(['evt_1', 'evt_2']);
	});

	it('forgets claims past the age limit and beyond the count, oldest first', () => {
		const claims = new ProcessClaims({ maxCount: 2, maxAgeMs: 1000 });
		claims.claim('s', 'a', 0);
		claims.claim('s', 'b', 10);
		claims.claim('s', 'c', 20);
		expect(claims.claim('s', 'a', 30)).toBe(true);
		expect(claims.claim('s', 'c', 40)).toBe(false);
		expect(claims.claim('s', 'c', 2000)).toBe(true);
		expect([...claims.known('s', 2000).keys()]).toEqual(['c']);
	});
});
