import { CatchUps, PROBE_AFTER_MS } from '../../nodes/Svc/trigger/backPressure';
import { sleep } from '../../harness/wait';

const SCOPE = 'workflow/node https://hooks.example.com/webhook';
const BEHIND_MS = 5_100;

/** Holds a delivery that found n8n behind now; resolves with the outcome and how long it waited. */
function hold(catchUps: CatchUps, holdMs = 10_000): Promise<{ released: boolean; waitedMs: number }> {
	const since = Date.now();
	catchUps.observe(SCOPE, since, BEHIND_MS);
	return catchUps.holdUntilCaughtUp(SCOPE, since, holdMs).then((released) => ({ released, waitedMs: Date.now() - since }));
}

describe('CatchUps: holding deliveries while n8n is behind', () => {
	it('lets a held delivery through once a later delivery finds n8n caught up', async () => {
		const catchUps = new CatchUps();
		const held = hold(catchUps);
		await sleep(150);
		catchUps.observe(SCOPE, Date.now(), 0);
		const { released, waitedMs } = await held;
		expect(released).toBe(true);
		expect(waitedMs).toBeLessThan(PROBE_AFTER_MS);
	});

	it('keeps holding while later deliveries still find n8n behind, and gives up after the hold time', async () => {
		const catchUps = new CatchUps();
		const held = hold(catchUps, 3 * PROBE_AFTER_MS);
		const stillBehind = setInterval(() => catchUps.observe(SCOPE, Date.now(), BEHIND_MS), 50);
		try {
			const { released, waitedMs } = await held;
			expect(released).toBe(false);
			expect(waitedMs).toBeGreaterThanOrEqual(3 * PROBE_AFTER_MS - 50);
		} finally {
			clearInterval(stillBehind);
		}
	});

	it('when nothing loads the list for a while, answers one held delivery so the sender sends another; the rest wait for it', async () => {
		const catchUps = new CatchUps();
		const held = Array.from({ length: 4 }, () => hold(catchUps));
		const probed = await Promise.race(held.map((delivery, index) => delivery.then((outcome) => ({ index, ...outcome }))));
		expect(probed.released).toBe(false);
		expect(probed.waitedMs).toBeGreaterThanOrEqual(PROBE_AFTER_MS - 50);
		expect(probed.waitedMs).toBeLessThan(PROBE_AFTER_MS + 300);

		// The probe counts as a load: the others are still held, until the next delivery finds n8n caught up.
		catchUps.observe(SCOPE, Date.now(), 0);
		const others = await Promise.all(held.filter((_, index) => index !== probed.index));
		expect(others.map((outcome) => outcome.released)).toEqual([true, true, true]);
	});

	it('keeps triggers apart: a catch-up seen by one releases nothing held by another', async () => {
		const catchUps = new CatchUps();
		const held = hold(catchUps, PROBE_AFTER_MS / 2);
		catchUps.observe('another/trigger https://hooks.example.com/other', Date.now(), 0);
		expect((await held).released).toBe(false);
	});
});
