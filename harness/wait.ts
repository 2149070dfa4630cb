/* eslint-disable @n8n/community-nodes/no-restricted-globals -- tooling that runs in Node.js beside n8n, never inside it */
/** Waiting, for the tools and tests: a pause, and polling until something holds. */

export const sleep = async (ms: number): Promise<void> =>
	await new Promise((done) => setTimeout(done, ms));

export interface PollOptions<T> {
	timeoutMs: number;
	/** The pause after a check: the same every time, or by the attempt's number (0 for the first). */
	everyMs: number | ((attempt: number) => number);
	/** What the poll answers, or throws, once `timeoutMs` has passed without an answer. */
	timedOut: () => T | Promise<T>;
}

/**
 * The one polling loop: calls `check` until it answers something other than `undefined`, and
 * returns that answer. The clock is read after each check, so there is always at least one.
 */
export async function poll<T>(
	check: () => T | undefined | Promise<T | undefined>,
	options: PollOptions<T>,
): Promise<T> {
	const deadline = Date.now() + options.timeoutMs;
	for (let attempt = 0; ; attempt++) {
		const answer = await check();
		if (answer !== undefined) return answer;
		if (Date.now() > deadline) return await options.timedOut();
		await sleep(typeof options.everyMs === 'number' ? options.everyMs : options.everyMs(attempt));
	}
}

export interface UntilOptions {
	timeoutMs?: number;
	/** Between two checks (default 100 ms). */
	everyMs?: number;
}

/** Checks `condition` until it holds; throws naming `what` once `timeoutMs` (default 30 s) has passed. */
export async function until(
	what: string,
	condition: () => boolean | Promise<boolean>,
	options: UntilOptions = {},
): Promise<void> {
	const timeoutMs = options.timeoutMs ?? 30_000;
	await poll(async () => ((await condition()) ? true : undefined), {
		timeoutMs,
		everyMs: options.everyMs ?? 100,
		timedOut: () => {
			throw new Error(`${what}: not reached within ${timeoutMs} ms`);
		},
	});
}
