/** Waiting, for the tools and tests: a pause, and polling until something holds. */

export const sleep = async (ms: number): Promise<void> => await new Promise((done) => setTimeout(done, ms));

export interface UntilOptions {
	timeoutMs?: number;
	/** Between two checks (default 100 ms). */
	everyMs?: number;
}

/** Checks `condition` until it holds; throws naming `what` once `timeoutMs` (default 30 s) has passed. */
export async function until(what: string, condition: () => boolean | Promise<boolean>, options: UntilOptions = {}): Promise<void> {
	const timeoutMs = options.timeoutMs ?? 30_000;
	const deadline = Date.now() + timeoutMs;
	while (!(await condition())) {
		if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
		await sleep(options.everyMs ?? 100);
	}
}
