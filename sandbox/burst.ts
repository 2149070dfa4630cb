import type { EventEnvelope } from '../nodes/Svc/contract';
import type { DeliveryAttempt } from './deliveries';
import { newId } from './ids';
import { seededRandom } from './seeded-random';
import type { SandboxState } from './state';

/**
 * A burst of signed deliveries as a CRM import causes one: many events of one kind sent at a
 * fixed concurrency, some of them sent again (same webhook-id, signed anew) at random places, as
 * an at-least-once service does. Every delivery goes through the sandbox's own deliveries, so
 * signing, timeouts and retries are the service's.
 */
export interface BurstOptions {
	/** Deliveries in all, repeats included. */
	deliveries: number;
	/** How many of them send an earlier event again. */
	repeats: number;
	/** Attempts in flight at once (retries included). */
	concurrency: number;
	/** Default: lead.created. */
	type?: string;
	/** Places the repeats: the same seed gives every receiver the same pattern. */
	seed?: number;
}

export interface BurstResult {
	/** The distinct events, in the order they were first sent. */
	events: EventEnvelope[];
	/** Per delivery in sending order, the index in `events` of what it sent. */
	sequence: number[];
	/** Every attempt of the burst's deliveries, retries included. */
	attempts: DeliveryAttempt[];
	/** Milliseconds since the epoch: when the first delivery was queued, and when the last one ended. */
	startedAt: number;
	finishedAt: number;
}

/** Which deliveries repeat an earlier event: `repeats` distinct places, never the first. */
function repeatPlaces(deliveries: number, repeats: number, random: () => number): Set<number> {
	const places = Array.from({ length: deliveries - 1 }, (_, index) => index + 1);
	// A partial Fisher–Yates shuffle: the first `repeats` entries are a uniform random choice.
	for (let index = 0; index < repeats; index++) {
		const pick = index + Math.floor(random() * (places.length - index));
		[places[index], places[pick]] = [places[pick], places[index]];
	}
	return new Set(places.slice(0, repeats));
}

/** Sends the burst to every subscription that wants its kind and resolves once all deliveries ended. */
export async function fireBurst(state: SandboxState, options: BurstOptions): Promise<BurstResult> {
	const { deliveries, repeats, concurrency } = options;
	if (
		!Number.isInteger(deliveries) ||
		!Number.isInteger(repeats) ||
		repeats < 0 ||
		repeats >= deliveries
	) {
		throw new RangeError('a burst needs whole numbers with 0 <= repeats < deliveries');
	}
	const type = options.type ?? 'lead.created';
	const random = seededRandom(options.seed ?? 1);
	const repeatAt = repeatPlaces(deliveries, repeats, random);
	const events: EventEnvelope[] = [];
	const sequence: number[] = [];
	const startedAt = Date.now();
	state.deliveries.limitConcurrency(concurrency);
	try {
		for (let place = 0; place < deliveries; place++) {
			if (repeatAt.has(place)) {
				const earlier = Math.floor(random() * events.length);
				state.deliveries.redeliver(events[earlier].id);
				sequence.push(earlier);
				continue;
			}
			const number = events.length + 1;
			const { event, deliveries: subscribers } = state.deliveries.emit(type, {
				id: newId('lead'),
				email: `import-${number}@example.com`,
				first_name: `Imported ${number}`,
				source: 'crm-import',
			});
			if (subscribers === 0)
				throw new Error(`No subscription wants ${type}: the burst would go nowhere`);
			sequence.push(events.length);
			events.push(event);
		}
		await state.waitForDeliveries();
	} finally {
		state.deliveries.limitConcurrency(undefined);
	}
	const ids = new Set(events.map((event) => event.id));
	return {
		events,
		sequence,
		attempts: state.deliveries.attempts().filter((attempt) => ids.has(attempt.eventId)),
		startedAt,
		finishedAt: Date.now(),
	};
}
