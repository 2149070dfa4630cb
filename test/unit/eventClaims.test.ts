import type { ProcessedRecord } from '../../nodes/Svc/trigger/exactlyOnce/eventClaims';
import { EventClaims } from '../../nodes/Svc/trigger/exactlyOnce/eventClaims';

/**
 * n8n's processed-data row as its deduplication helper uses it: read the row, yield, write back
 * what was read plus the new values, with no lock. Two calls that start together both read the old
 * row, and the later write drops what the earlier one added, as between two n8n processes.
 */
class UnlockedRow {
	values: string[] = [];
	calls = 0;
	failures = 0;

	record(): ProcessedRecord {
		return {
			checkAndRecord: async (values) => {
				this.calls += 1;
				const read = [...this.values];
				await Promise.resolve();
				await Promise.resolve();
				if (this.failures > 0) {
					this.failures -= 1;
					throw new Error('SQLITE_BUSY: database is locked');
				}
				const present = new Set(values.filter((value) => read.includes(value)));
				this.values = [...read, ...values.filter((value) => !present.has(value))];
				return present;
			},
		};
	}
}

/** A process's claims: no real waiting, the order of the row's reads and writes is what matters. */
const process = () =>
	new EventClaims({ settleMs: 0, maxRounds: 5, maxCount: 100, maxAgeMs: 60_000 }, () =>
		Promise.resolve(),
	);
const NOW = 1_000_000;
let executions = 0;
/** A new execution's id, as n8n gives each delivery. */
const execution = () => String(++executions);

describe('EventClaims', () => {
	it('the first execution of an event runs it; a second in the same process is a repeat without a database call', async () => {
		const row = new UnlockedRow();
		const claims = process();
		expect(await claims.claim('wf node', 'evt_1', execution(), row.record(), NOW)).toBe('first');
		const calls = row.calls;
		expect(await claims.claim('wf node', 'evt_1', execution(), row.record(), NOW)).toBe('repeat');
		expect(row.calls).toBe(calls);
		expect(claims.has('wf node', 'evt_1', NOW)).toBe(true);
		expect(claims.has('other workflow node', 'evt_1', NOW)).toBe(false);
	});

	it('after a restart the record in the database still knows the event', async () => {
		const row = new UnlockedRow();
		expect(await process().claim('wf node', 'evt_1', execution(), row.record(), NOW)).toBe('first');
		const restarted = process();
		expect(restarted.has('wf node', 'evt_1', NOW)).toBe(false);
		expect(await restarted.claim('wf node', 'evt_1', execution(), row.record(), NOW)).toBe(
			'repeat',
		);
	});

	it('two processes claiming 40 events at the same instant, each event at both: every event runs exactly once', async () => {
		const row = new UnlockedRow();
		const [a, b] = [process(), process()];
		const ids = Array.from({ length: 40 }, (_, index) => `evt_${index}`);
		const outcomes = await Promise.all(
			ids.flatMap((id) => [
				a.claim('wf node', id, execution(), row.record(), NOW),
				b.claim('wf node', id, execution(), row.record(), NOW),
			]),
		);
		for (let index = 0; index < ids.length; index++) {
			expect([outcomes[2 * index], outcomes[2 * index + 1]].sort()).toEqual(['first', 'repeat']);
		}
		// Both processes' first writes read the empty row: without the second read, both would have run every event.
		expect(row.values.filter((value) => value.startsWith('event ')).sort()).toEqual(
			ids.map((id) => `event ${id}`).sort(),
		);
	});

	it("a claim another process's concurrent write dropped is written again, and runs", async () => {
		const row = new UnlockedRow();
		const [a, c] = [process(), process()];
		// c's write of another event read the row before a's claim landed, and lands after it.
		const outcomes = await Promise.all([
			a.claim('wf node', 'evt_a', execution(), row.record(), NOW),
			c.claim('wf node', 'evt_c', execution(), row.record(), NOW),
		]);
		expect(outcomes).toEqual(['first', 'first']);
		expect(row.values).toEqual(expect.arrayContaining(['event evt_a', 'event evt_c']));
	});

	it('a failed database call is tried once more (two processes creating the row collide on its key)', async () => {
		const row = new UnlockedRow();
		row.failures = 1;
		expect(await process().claim('wf node', 'evt_1', execution(), row.record(), NOW)).toBe('first');
	});

	it('a database error twice in a row fails the claim, and a later delivery of the event can claim it', async () => {
		const row = new UnlockedRow();
		const claims = process();
		row.failures = 2;
		await expect(claims.claim('wf node', 'evt_1', execution(), row.record(), NOW)).rejects.toThrow(
			/SQLITE_BUSY/,
		);
		expect(claims.has('wf node', 'evt_1', NOW)).toBe(false);
		expect(await claims.claim('wf node', 'evt_1', execution(), row.record(), NOW)).toBe('first');
	});

	it('the same execution run again (n8n 1.x re-runs a job whose worker died) finds its own earlier claim: a rerun, not a first run', async () => {
		const row = new UnlockedRow();
		expect(await process().claim('wf node', 'evt_1', '41', row.record(), NOW)).toBe('first');
		const otherWorker = process();
		expect(await otherWorker.claim('wf node', 'evt_1', '41', row.record(), NOW)).toBe('rerun');
		expect(await process().claim('wf node', 'evt_1', '42', row.record(), NOW)).toBe('repeat');
	});

	it("as the record's sole writer (n8n's regular mode) a claim stands once written: one record call and no wait; a repeat and a rerun are found as before", async () => {
		const row = new UnlockedRow();
		let waits = 0;
		const claims = () =>
			new EventClaims({ settleMs: 2_000, maxRounds: 5, maxCount: 100, maxAgeMs: 60_000 }, () => {
				waits += 1;
				return Promise.resolve();
			});
		const soleWriter = { soleWriter: true };
		expect(await claims().claim('wf node', 'evt_1', '41', row.record(), NOW, soleWriter)).toBe(
			'first',
		);
		expect([row.calls, waits]).toEqual([1, 0]);
		expect(row.values).toEqual(['event evt_1', 'claim evt_1 41']);
		expect(await claims().claim('wf node', 'evt_1', '42', row.record(), NOW, soleWriter)).toBe(
			'repeat',
		);
		expect(await claims().claim('wf node', 'evt_1', '41', row.record(), NOW, soleWriter)).toBe(
			'rerun',
		);
		// Without it, the claim is read again after the settle.
		expect(await claims().claim('wf node', 'evt_2', '43', row.record(), NOW)).toBe('first');
		expect(waits).toBe(1);
	});

	it('forgets claims past their age and beyond its count, oldest first', async () => {
		const row = new UnlockedRow();
		const claims = new EventClaims(
			{ settleMs: 0, maxRounds: 5, maxCount: 2, maxAgeMs: 1_000 },
			() => Promise.resolve(),
		);
		for (const id of ['evt_1', 'evt_2', 'evt_3'])
			await claims.claim('wf node', id, execution(), row.record(), NOW);
		expect(['evt_1', 'evt_2', 'evt_3'].map((id) => claims.has('wf node', id, NOW))).toEqual([
			false,
			true,
			true,
		]);
		expect(claims.has('wf node', 'evt_3', NOW + 1_001)).toBe(false);
	});

	it("a Retry's claim and a new execution's claim of one event in the same batch: only the first runs it", async () => {
		const row = new UnlockedRow();
		const claims = process();
		// A claim in flight makes the next two wait and go to n8n's record in one call.
		const [, fresh, retry] = await Promise.all([
			claims.claim('wf node', 'evt_0', execution(), row.record(), NOW),
			claims.claim('wf node', 'evt_1', execution(), row.record(), NOW),
			claims.claim('wf node', 'evt_1', 'crashed run', row.record(), NOW, { askRecord: true }),
		]);
		expect([fresh, retry]).toEqual(['first', 'repeat']);
	});
});

describe('what one process tells another of its claims (a queue-mode worker to its webhook processor)', () => {
	it('names the claims that stood here, newest first, not one still being decided or one whose record failed', async () => {
		const row = new UnlockedRow();
		const worker = process();
		for (const id of ['evt_1', 'evt_2'])
			await worker.claim('wf', id, execution(), row.record(), NOW);
		// Another process ran evt_3: this one found its claim standing in the record, a repeat here.
		await process().claim('wf', 'evt_3', execution(), row.record(), NOW);
		expect(await worker.claim('wf', 'evt_3', execution(), row.record(), NOW)).toBe('repeat');
		row.failures = 2;
		await expect(worker.claim('wf', 'evt_4', execution(), row.record(), NOW)).rejects.toThrow();
		let release = (): void => {};
		const released = new Promise<void>((resolve) => (release = resolve));
		const slow: ProcessedRecord = {
			checkAndRecord: async (values) => {
				await released;
				return await row.record().checkAndRecord(values);
			},
		};
		const undecided = worker.claim('wf', 'evt_5', execution(), slow, NOW);
		expect(worker.stoodHere('wf', NOW, 10)).toEqual(['evt_3', 'evt_2', 'evt_1']);
		expect(worker.stoodHere('wf', NOW, 2)).toEqual(['evt_3', 'evt_2']);
		expect(worker.stoodHere('another workflow', NOW, 10)).toEqual([]);
		release();
		expect(await undecided).toBe('first');
		expect(worker.stoodHere('wf', NOW, 1)).toEqual(['evt_5']);
	});

	it('names the newest claims when more stood than the report has room for', () => {
		const worker = process();
		const ids = Array.from({ length: 23 }, (_, index) => `evt_${index}`);
		worker.learn('wf', ids, NOW);
		const newestFirst = [...ids].reverse();
		for (const limit of [1, 5, 23, 40])
			expect(worker.stoodHere('wf', NOW, limit)).toEqual(newestFirst.slice(0, limit));
		expect(worker.stoodHere('wf', NOW, 0)).toEqual([]);
	});

	it('claims learned from another process are taken here, for as long as its own claims are kept', () => {
		const processor = process();
		processor.learn('wf', ['evt_1', 'evt_2'], NOW);
		expect(['evt_1', 'evt_2', 'evt_3'].map((id) => processor.has('wf', id, NOW))).toEqual([
			true,
			true,
			false,
		]);
		expect(processor.has('another workflow', 'evt_1', NOW)).toBe(false);
		expect(processor.has('wf', 'evt_1', NOW + 60_001)).toBe(false);
	});
});
