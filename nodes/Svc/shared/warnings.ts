import type { Logger } from 'n8n-workflow';

/** Lets something happen once per interval per key: the first call after the interval says yes. */
class PerKeyInterval {
	private readonly last = new Map<string, number>();

	constructor(private readonly intervalMs: number) {}

	due(key: string, now: number): boolean {
		if (now - (this.last.get(key) ?? 0) < this.intervalMs) return false;
		this.last.set(key, now);
		return true;
	}
}

/** Warnings are logged once a minute per cause, not once per delivery or read. */
const warnings = new PerKeyInterval(60_000);

export function warnAtMostEveryMinute(
	ctx: { logger: Logger },
	key: string,
	now: number,
	message: () => string,
): void {
	if (warnings.due(key, now)) ctx.logger.warn(message());
}
