import type { IDataObject } from 'n8n-workflow';

import { ProcessClaims, SeenEvents } from '../../nodes/Svc/trigger/seenEvents';

/** One delivery's load and record, as the trigger does them. */
function recordIfNew(
	data: IDataObject,
	id: string,
	now: number,
	knownHere: ReadonlyMap<string, number> = new Map(),
	limits?: { maxCount: number; maxAgeMs: number },
): boolean {
	return SeenEvents.load(data, now, limits).recordIfNew(data, id, now, knownHere);
}

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

	it('stores only the newest maxCount of the ids this process accepted, which may remember more', () => {
		const limits = { maxCount: 3, maxAgeMs: 1000 };
		const knownHere = new Map(['evt_1', 'evt_2', 'evt_3', 'evt_4', 'evt_5'].map((id, index): [string, number] => [id, index]));
		const data: IDataObject = {};
		expect(recordIfNew(data, 'evt_6', 6, knownHere, limits)).toBe(true);
		expect(storedIds(data)).toEqual(['evt_4', 'evt_5', 'evt_6']);
	});
});

describe('saveLagMs', () => {
	const window = { limitMs: 2_000, windowMs: 60_000 };
	const accepted = (...entries: Array<[string, number]>) => new Map(entries);

	it('is 0 when every id this process accepted over the limit ago is stored', () => {
		const data: IDataObject = {};
		recordIfNew(data, 'evt_a', 1_000);
		recordIfNew(data, 'evt_b', 2_000);
		const seen = SeenEvents.load(data, 10_000);
		expect(seen.saveLagMs(accepted(['evt_a', 1_000], ['evt_b', 2_000], ['evt_c', 9_500]), 10_000, window)).toBe(0);
	});

	it('is the age of the oldest accepted id the stored list still lacks', () => {
		const data: IDataObject = {};
		recordIfNew(data, 'evt_a', 1_000);
		const seen = SeenEvents.load(data, 20_000);
		expect(seen.saveLagMs(accepted(['evt_a', 1_000], ['evt_b', 4_000], ['evt_c', 12_000], ['evt_d', 19_000]), 20_000, window)).toBe(16_000);
	});

	it('leaves out ids a full stored list dropped as the oldest: over 2,000 accepted within the window is no lag', () => {
		const data: IDataObject = {};
		const claims = new ProcessClaims({ maxCount: 10_000, maxAgeMs: 7 * 24 * 60 * 60 * 1000 });
		let worst = 0;
		// 3,500 deliveries 17 ms apart (about 58 a second), each saved before the next arrives.
		for (let index = 0; index < 3_500; index++) {
			const now = 1_000_000 + index * 17;
			const seen = SeenEvents.load(data, now);
			worst = Math.max(worst, seen.saveLagMs(claims.known('scope', now), now, window));
			claims.claim('scope', `evt_${index}`, now);
			seen.recordIfNew(data, `evt_${index}`, now, claims.known('scope', now));
		}
		expect(storedIds(data)).toHaveLength(2_000);
		expect(worst).toBe(0);
		// A full list that stops being saved still shows the lag of what it lacks.
		const later = 1_000_000 + 3_500 * 17 + 6_000;
		const stale = SeenEvents.load(data, later);
		claims.claim('scope', 'evt_unsaved', later - 5_000);
		expect(stale.saveLagMs(claims.known('scope', later), later, window)).toBe(5_000);
	});

	it('leaves out ids accepted before the newest stored: a later save dropped them (queue mode), n8n is not behind', () => {
		const data: IDataObject = {};
		// Another process saved the list it loaded before this one's save of evt_a landed, with its own newer id.
		recordIfNew(data, 'evt_other', 9_000);
		const seen = SeenEvents.load(data, 10_000);
		expect(seen.saveLagMs(accepted(['evt_a', 5_000]), 10_000, window)).toBe(0);
		// An id of this process accepted after that save, missing past the limit, is lag again.
		expect(seen.saveLagMs(accepted(['evt_a', 5_000], ['evt_b', 9_500]), 12_000, window)).toBe(2_500);
	});

	it('leaves out ids older than the window: another process may have dropped those', () => {
		const seen = SeenEvents.load({}, 100_000);
		expect(seen.saveLagMs(accepted(['evt_old', 1_000], ['evt_recent', 99_000]), 100_000, window)).toBe(0);
		expect(seen.saveLagMs(accepted(['evt_old', 1_000], ['evt_missing', 50_000]), 100_000, window)).toBe(50_000);
	});
});

describe('writeBack', () => {
	it('restores ids this process accepted to the stored list without recording a new one', () => {
		const data: IDataObject = {};
		recordIfNew(data, 'evt_a', 1_000);
		const seen = SeenEvents.load(data, 5_000);
		seen.writeBack(data, 5_000, new Map([['evt_b', 2_000]]));
		expect(storedIds(data)).toEqual(['evt_a', 'evt_b']);
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
