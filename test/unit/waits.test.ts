import { settlesWithin } from '../../nodes/Svc/shared/waits';

describe('settlesWithin', () => {
	afterEach(() => {
		jest.useRealTimers();
	});

	it('is true as soon as the promise settles, resolved or rejected, and false once the wait runs out', async () => {
		jest.useFakeTimers();
		let resolve = (): void => {};
		const resolved = settlesWithin(new Promise<void>((done) => (resolve = done)), 5_000);
		const rejected = settlesWithin(Promise.reject(new Error('no')), 5_000);
		const never = settlesWithin(new Promise(() => {}), 1_000);
		resolve();
		await expect(resolved).resolves.toBe(true);
		await expect(rejected).resolves.toBe(true);
		let ranOut: boolean | undefined;
		void never.then((settled) => (ranOut = settled));
		await jest.advanceTimersByTimeAsync(900);
		expect(ranOut).toBeUndefined();
		await jest.advanceTimersByTimeAsync(100);
		expect(ranOut).toBe(false);
	});

	it('leaves no timer running once no wait is open, however long the waits were', async () => {
		jest.useFakeTimers();
		let resolve = (): void => {};
		const long = settlesWithin(new Promise<void>((done) => (resolve = done)), 120_000);
		const short = settlesWithin(new Promise(() => {}), 300);
		expect(jest.getTimerCount()).toBe(1);
		resolve();
		await expect(long).resolves.toBe(true);
		await jest.advanceTimersByTimeAsync(300);
		await expect(short).resolves.toBe(false);
		await jest.advanceTimersByTimeAsync(100);
		expect(jest.getTimerCount()).toBe(0);
	});
});
