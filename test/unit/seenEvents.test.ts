import type { IDataObject } from 'n8n-workflow';

import { ProcessClaims, recordIfNew } from '../../nodes/Svc/trigger/seenEvents';

/** The ids in a stored list, oldest first: each line is `<base-36 ms> <id>`. */
function storedIds(data: IDataObject): string[] {
	return (data.seenEvents as string).split('\n').map((line) => line.slice(line.indexOf(' ') + 1));
}

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
		expect((data.seenEvents as string).split('\n')).toHaveLength(3);
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

	it('stores one line of text per id, so n8n saves one string rather than 2,000 objects', () => {
		const data: IDataObject = {};
		recordIfNew(data, 'evt_1', 36);
		recordIfNew(data, 'evt with space', 37);
		expect(data.seenEvents).toBe('10 evt_1\n11 evt with space');
		expect(recordIfNew(data, 'evt with space', 38)).toBe(false);
	});

	it('reads the list of objects version 0.1.0 stored, and writes it back as text', () => {
		const data: IDataObject = { seenEvents: [{ id: 'evt_old_1', at: 1 }, { id: 'evt_old_2', at: 2 }, { broken: true }] };
		expect(recordIfNew(data, 'evt_old_2', 3)).toBe(false);
		expect(recordIfNew(data, 'evt_new', 4)).toBe(true);
		expect(storedIds(data)).toEqual(['evt_old_1', 'evt_old_2', 'evt_new']);
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
		expect(storedIds(second)).toEqual(['evt_a', 'evt_b']);
		expect(recordIfNew(second, 'evt_a', 3)).toBe(false);
	});
});

describe('ProcessClaims', () => {
	it('grants the first claim of an id per scope; a repeat of a started one is a repeat', () => {
		const claims = new ProcessClaims({ maxCount: 100, maxAgeMs: 1000 });
		expect(claims.claim('wf1/node', 'evt_1', 0)).toBe('first');
		claims.settle('wf1/node', 'evt_1', true);
		expect(claims.claim('wf1/node', 'evt_1', 1)).toBe('repeat');
		expect(claims.claim('wf2/node', 'evt_1', 2)).toBe('first');
		expect(claims.claim('wf1/node', 'evt_2', 3)).toBe('first');
		claims.settle('wf1/node', 'evt_2', true);
		expect([...claims.known('wf1/node', 4).keys()]).toEqual(['evt_1', 'evt_2']);
	});

	it('says "starting" while the first copy is unanswered, and forgets a claim whose execution did not start', () => {
		const claims = new ProcessClaims({ maxCount: 100, maxAgeMs: 1000 });
		expect(claims.claim('s', 'evt_1', 0)).toBe('first');
		expect(claims.claim('s', 'evt_1', 1)).toBe('starting');
		// Not written back to static data until it started.
		expect(claims.known('s', 2).has('evt_1')).toBe(false);
		claims.settle('s', 'evt_1', false);
		expect(claims.claim('s', 'evt_1', 3)).toBe('first');
		claims.settle('s', 'evt_1', true);
		// A late settle of an already settled claim changes nothing.
		claims.settle('s', 'evt_1', false);
		expect(claims.claim('s', 'evt_1', 4)).toBe('repeat');
	});

	it('forgets claims past the age limit and beyond the count, oldest first', () => {
		const claims = new ProcessClaims({ maxCount: 2, maxAgeMs: 1000 });
		const settled = (id: string, at: number): string => {
			const claim = claims.claim('s', id, at);
			claims.settle('s', id, true);
			return claim;
		};
		settled('a', 0);
		settled('b', 10);
		settled('c', 20);
		expect(settled('a', 30)).toBe('first');
		expect(settled('c', 40)).toBe('repeat');
		expect(settled('c', 2000)).toBe('first');
		expect([...claims.known('s', 2000).keys()]).toEqual(['c']);
	});
});
