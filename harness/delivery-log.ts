/**
 * The service's side of a delivery test: the sandbox's log of delivery attempts, read per event,
 * and the service's way of sending again what was not answered 2xx.
 */
import type { SandboxState } from '../sandbox/state';

/** Each delivery attempt of one event: its status or error, and when (UTC time of day). */
export function attemptsOf(state: SandboxState, eventId: string): string[] {
	return state.deliveries
		.attempts({ eventId })
		.map((attempt) => `${attempt.status ?? attempt.error} at ${attempt.startedAt.slice(11, 23)}`);
}

/** Ids of the events among `ids` the service had answered 2xx at least once. */
export function answeredOf(state: SandboxState, ids: Iterable<string>): Set<string> {
	const wanted = new Set(ids);
	return new Set(
		state.deliveries
			.attempts()
			.filter((attempt) => attempt.ok && wanted.has(attempt.eventId))
			.map((attempt) => attempt.eventId),
	);
}

/**
 * Sends every event of `ids` not yet answered 2xx again, as the service would, round after round
 * until each was answered; returns how many rounds that took.
 */
export async function sendUntilAnswered(state: SandboxState, ids: string[]): Promise<number> {
	for (let round = 0; ; round++) {
		const answered = answeredOf(state, ids);
		const unanswered = ids.filter((id) => !answered.has(id));
		if (unanswered.length === 0) return round;
		if (round === 20)
			throw new Error(
				`${unanswered.length} events still not answered 2xx after 20 rounds of sending them again`,
			);
		for (const id of unanswered) state.deliveries.redeliver(id);
		await state.waitForDeliveries();
	}
}
