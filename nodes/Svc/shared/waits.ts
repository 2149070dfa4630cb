import { sleep } from 'n8n-workflow';

/**
 * How often the process's one clock looks at the waits it serves, and so how long it can outlive
 * the last of them. n8n's `sleep` cannot be cancelled: a wait raced against it would leave its timer
 * running to the end, holding the process open (a receipt's 2 minutes, a slot's 8 s) after the wait
 * it served was over.
 */
const TICK_MS = 100;

interface Wait {
	deadline: number;
	expire: () => void;
}

const waits = new Set<Wait>();
let ticking = false;

async function tick(): Promise<void> {
	ticking = true;
	while (waits.size > 0) {
		await sleep(TICK_MS);
		const now = Date.now();
		for (const wait of waits) {
			if (wait.deadline > now) continue;
			waits.delete(wait);
			wait.expire();
		}
	}
	ticking = false;
}

/**
 * Whether `promise` settles within `ms`: true as soon as it does, false once `ms` (up to TICK_MS
 * more) has passed. The clock runs only while some wait is open.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
	return await new Promise<boolean>((resolve) => {
		const wait: Wait = { deadline: Date.now() + ms, expire: () => resolve(false) };
		waits.add(wait);
		const settled = (): void => {
			if (waits.delete(wait)) resolve(true);
		};
		promise.then(settled, settled);
		if (!ticking) void tick();
	});
}
