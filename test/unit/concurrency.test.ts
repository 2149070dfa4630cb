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
	it('spaces requests to the configured rate', async () => {
		const gate = new RequestGate({ maxRequestsPerSecond: 50 });
		const start = Date.now();
		await Promise.all(Array.from({ length: 11 }, () => gate.admit()));
		// 11 starts at 50/s need at least 10 intervals of 20 ms.
		expect(Date.now() - start).toBeGreaterThanOrEqual(190);
	});

	it('holds every caller back after a pause', async () => {
		const gate = new RequestGate();
		gate.pause(150);
		const start = Date.now();
		await Promise.all([gate.admit(), gate.admit(), gate.admit()]);
		expect(Date.now() - start).toBeGreaterThanOrEqual(140);
	});

	it('lets callers through at once when unlimited and not paused', async () => {
		const gate = new RequestGate();
		const start = Date.now();
		await Promise.all(Array.from({ length: 100 }, () => gate.admit()));
		expect(Date.now() - start).toBeLessThan(50);
	});
});
