import { ExecutionSlots } from '../../nodes/Svc/trigger/exactlyOnce/executionSlots';

describe('ExecutionSlots', () => {
	it('gives out at most its size, hands a freed slot to the first waiter, and frees a slot once however often freed', async () => {
		const slots = new ExecutionSlots(2);
		const first = await slots.take();
		await slots.take();
		const order: string[] = [];
		const third = slots.take().then((free) => {
			order.push('third');
			return free;
		});
		const fourth = slots.take().then(() => order.push('fourth'));
		await Promise.resolve();
		expect(order).toEqual([]);
		expect(slots.inUse).toBe(2);
		first();
		first();
		const freeThird = await third;
		expect(order).toEqual(['third']);
		expect(slots.inUse).toBe(2);
		freeThird();
		await fourth;
		expect(order).toEqual(['third', 'fourth']);
		expect(slots.inUse).toBe(2);
	});

	it('frees the slots taken before a time, and only those, waking a waiter for each', async () => {
		const slots = new ExecutionSlots(2);
		await slots.take(() => 1_000);
		await slots.take(() => 5_000);
		let woke = false;
		const waiter = slots.take(() => 6_000).then(() => (woke = true));
		slots.freeTakenBefore(2_000);
		await waiter;
		expect(woke).toBe(true);
		expect(slots.inUse).toBe(2);
		slots.freeTakenBefore(5_000);
		expect(slots.inUse).toBe(2);
	});

	it('a slot freed for a waiter is not taken by a take() that comes before the waiter wakes', async () => {
		const slots = new ExecutionSlots(1);
		const free = await slots.take();
		const order: string[] = [];
		const waiter = slots.take().then(() => order.push('waiter'));
		free();
		const late = slots.take().then(() => order.push('late'));
		await waiter;
		await Promise.resolve();
		expect(order).toEqual(['waiter']);
		expect(slots.inUse).toBe(1);
		void late;
	});

	it('takeWithin gives up once its wait runs out with no slot free, and leaves no claim on the next free slot', async () => {
		jest.useFakeTimers();
		try {
			const slots = new ExecutionSlots(1);
			const free = await slots.take();
			const given = slots.takeWithin(1_000);
			await jest.advanceTimersByTimeAsync(999);
			expect(slots.inUse).toBe(1);
			await jest.advanceTimersByTimeAsync(1);
			await expect(given).resolves.toBeUndefined();
			free();
			expect(slots.inUse).toBe(0);
			const next = slots.takeWithin(1_000);
			await expect(next).resolves.toEqual(expect.any(Function));
			expect(slots.inUse).toBe(1);
		} finally {
			jest.useRealTimers();
		}
	});

	it('takeWithin gets a slot freed before its wait runs out', async () => {
		const slots = new ExecutionSlots(1);
		const free = await slots.take();
		const given = slots.takeWithin(1_000);
		free();
		await expect(given).resolves.toEqual(expect.any(Function));
		expect(slots.inUse).toBe(1);
	});
});
