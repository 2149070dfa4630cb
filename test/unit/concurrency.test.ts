/* eslint-disable @n8n/community-nodes/no-restricted-globals -- tooling that runs in Node.js beside n8n, never inside it */
import { runBounded } from '../../nodes/Svc/shared/pool';
import { RequestGate } from '../../nodes/Svc/transport';

describe('runBounded', () => {
	it('never runs more than the bound at once and runs every index once', async () => {
		let running = 0;
		let most = 0;
		const done: number[] = [];
		await runBounded(50, 4, async (index) => {
			running++;
			most = Math.max(most, running);
			await new Promise((resolve) => setImmediate(resolve));
			done.push(index);
			running--;
		});
		expect(most).toBe(4);
		expect([...done].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
	});

	it('starts nothing new after a failure, lets running work finish, then throws it', async () => {
		const started: number[] = [];
		const finished: number[] = [];
		await expect(
			runBounded(20, 3, async (index) => {
				started.push(index);
				await new Promise((resolve) => setImmediate(resolve));
				if (index === 1) throw new Error('item 1 failed');
				finished.push(index);
			}),
		).rejects.toThrow('item 1 failed');
		expect(started.length).toBeLessThan(20);
		expect(finished).toEqual(expect.arrayContaining([0, 2]));
	});
});

describe('RequestGate', () => {
	// jest's clock drives both the gate's Date.now and its sleeps: the spacing is exact, whatever the machine's load.
	beforeEach(() => jest.useFakeTimers());
	afterEach(() => jest.useRealTimers());

	/** Starts `count` callers at once; resolves with the clock time at which each was let through, in order. */
	async function admitted(gate: RequestGate, count: number): Promise<number[]> {
		const start = Date.now();
		const times: number[] = [];
		const all = Promise.all(
			Array.from({ length: count }, async () => {
				await gate.admit();
				times.push(Date.now() - start);
			}),
		);
		await jest.runAllTimersAsync();
		await all;
		return times;
	}

	it('spaces requests to the configured rate', async () => {
		// 11 starts at 50/s: one every 20 ms.
		expect(await admitted(new RequestGate({ maxRequestsPerSecond: 50 }), 11)).toEqual(
			Array.from({ length: 11 }, (_, index) => index * 20),
		);
	});

	it('holds every caller back after a pause', async () => {
		const gate = new RequestGate();
		gate.pause(150);
		expect(await admitted(gate, 3)).toEqual([150, 150, 150]);
	});

	it('lets callers through at once when unlimited and not paused', async () => {
		const gate = new RequestGate();
		let through = 0;
		const all = Promise.all(
			Array.from({ length: 100 }, async () => {
				await gate.admit();
				through++;
			}),
		);
		// No timer is involved: all are through once pending promise callbacks ran, with the clock unmoved.
		expect(jest.getTimerCount()).toBe(0);
		await jest.advanceTimersByTimeAsync(0);
		expect(through).toBe(100);
		await all;
	});
});
