import { CatchUps, PROBE_AFTER_MS } from '../../nodes/Svc/trigger/backPressure';

const SCOPE = 'workflow/node https://hooks.example.com/webhook';
const BEHIND_MS = 5_100;

// Holds are real time in the node; here jest's clock drives both their polls and Date.now, so the
// outcome does not depend on how fast the machine is.
beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

interface Outcome {
	released: boolean;
	waitedMs: number;
}

/** Holds a delivery that found n8n behind now; `outcome` is undefined until the hold ends. */
function hold(catchUps: CatchUps, holdMs = 10_000): { done: Promise<Outcome>; outcome: () => Outcome | undefined } {
	const since = Date.now();
	catchUps.observe(SCOPE, since, BEHIND_MS);
	let outcome: Outcome | undefined;
	const done = catchUps.holdUntilCaughtUp(SCOPE, since, holdMs).then((released) => (outcome = { released, waitedMs: Date.now() - since }));
	return { done, outcome: () => outcome };
}

describe('CatchUps: holding deliveries while n8n is behind', () => {
	it('lets a held delivery through once a later delivery finds n8n caught up', async () => {
		const catchUps = new CatchUps();
		const held = hold(catchUps);
		expect(catchUps.held).toBe(1);
		await jest.advanceTimersByTimeAsync(150);
		expect(held.outcome()).toBeUndefined();
		catchUps.observe(SCOPE, Date.now(), 0);
		// The next poll sees it.
		await jest.advanceTimersByTimeAsync(100);
		expect(held.outcome()).toEqual({ released: true, waitedMs: 200 });
		expect(catchUps.held).toBe(0);
	});

	it('keeps holding while later deliveries still find n8n behind, and gives up after the hold time', async () => {
		const catchUps = new CatchUps();
		const holdMs = 3 * PROBE_AFTER_MS;
		const held = hold(catchUps, holdMs);
		for (let at = 0; at < holdMs - 100; at += 50) {
			await jest.advanceTimersByTimeAsync(50);
			catchUps.observe(SCOPE, Date.now(), BEHIND_MS);
			expect(held.outcome()).toBeUndefined();
		}
		await jest.advanceTimersByTimeAsync(100);
		expect(held.outcome()).toEqual({ released: false, waitedMs: holdMs });
	});

	it('when nothing loads the list for PROBE_AFTER_MS, answers exactly one held delivery; the rest wait for the next load', async () => {
		const catchUps = new CatchUps();
		const held = Array.from({ length: 4 }, () => hold(catchUps));
		await jest.advanceTimersByTimeAsync(PROBE_AFTER_MS - 100);
		expect(held.filter((delivery) => delivery.outcome() !== undefined)).toHaveLength(0);
		await jest.advanceTimersByTimeAsync(100);
		const probed = held.filter((delivery) => delivery.outcome() !== undefined);
		expect(probed.map((delivery) => delivery.outcome())).toEqual([{ released: false, waitedMs: PROBE_AFTER_MS }]);
		expect(catchUps.held).toBe(3);

		// The probe counts as a load: the others stay held, until the next delivery finds n8n caught up.
		await jest.advanceTimersByTimeAsync(PROBE_AFTER_MS - 100);
		expect(catchUps.held).toBe(3);
		catchUps.observe(SCOPE, Date.now(), 0);
		await jest.advanceTimersByTimeAsync(100);
		const others = held.filter((delivery) => !probed.includes(delivery));
		expect(others.map((delivery) => delivery.outcome()?.released)).toEqual([true, true, true]);
		expect(catchUps.held).toBe(0);
	});

	it('keeps triggers apart: a catch-up seen by one releases nothing held by another', async () => {
		const catchUps = new CatchUps();
		const held = hold(catchUps, PROBE_AFTER_MS / 2);
		catchUps.observe('another/trigger https://hooks.example.com/other', Date.now(), 0);
		await jest.advanceTimersByTimeAsync(PROBE_AFTER_MS / 2);
		expect(held.outcome()).toEqual({ released: false, waitedMs: PROBE_AFTER_MS / 2 });
	});
});
