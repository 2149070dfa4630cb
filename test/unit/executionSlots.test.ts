import { ExecutionSlots } from '../../nodes/Svc/trigger/executionSlots';

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
		freeThird();
		await fourth;
		expect(order).toEqual(['third', 'fourth']);
		expect(slots.inUse).toBe(2);
	});
});
