import { sleep } from 'n8n-workflow';

/**
 * n8n's record of processed values for one workflow: a row in n8n's database
 * (`helpers.checkProcessedAndRecord`, workflow scope), which every n8n process of a deployment
 * shares and which outlives a restart.
 */
export interface ProcessedRecord {
	/** Records every value and returns those that were recorded before. */
	checkAndRecord(values: string[]): Promise<Set<string>>;
}

/**
 * 'first': this claimant runs the event. 'repeat': another has it. 'rerun': this claimant had
 * claimed it in an earlier run that a dead process cut short (n8n 1.x in queue mode runs a stalled
 * job again under the same id), so the event may already have run past the trigger.
 */
export type ClaimOutcome = 'first' | 'repeat' | 'rerun';

export interface ClaimLimits {
	/**
	 * How long a claim must stand before it counts. n8n reads the row, changes it and writes it
	 * back with no lock, so a concurrent write by another process can overwrite a claim, or two
	 * processes can both find an event new. Waiting longer than any such read-and-write takes,
	 * then reading again, tells which claim stood.
	 */
	settleMs: number;
	/** Rounds of claiming again after the claim was overwritten, before the execution fails (retryable). */
	maxRounds: number;
	/** How many claims this process remembers per trigger, and for how long. */
	maxCount: number;
	maxAgeMs: number;
}

export interface ClaimOptions {
	askRecord?: boolean;
	/**
	 * No other process writes the record: the execution runs in the process that started it
	 * (n8n's regular mode), where every execution of the workflow runs. A claim written then
	 * stands at once, with no settle: only another process's write could have dropped it.
	 */
	soleWriter?: boolean;
}

/** How many of the newest events n8n's record of a trigger keeps. */
export const CLAIMED_EVENTS_KEPT = 2_000;
/** Per event the record holds two values: the event and the claim that stood. */
export const CLAIMED_EVENTS_MAX_ENTRIES = 2 * CLAIMED_EVENTS_KEPT;

/**
 * One record call at a time per trigger in this process, carrying every value asked for since
 * the last: this process never overwrites its own writes, and a burst costs one database read and
 * write per batch, not per event.
 */
class SerialRecorder {
	constructor(private readonly wait: (ms: number) => Promise<void>) {}

	private queue: Array<{
		record: ProcessedRecord;
		values: string[];
		resolve: (present: Set<string>) => void;
		reject: (error: unknown) => void;
	}> = [];
	private busy = false;

	async checkAndRecord(record: ProcessedRecord, values: string[]): Promise<Set<string>> {
		return await new Promise((resolve, reject) => {
			this.queue.push({ record, values, resolve, reject });
			void this.drain();
		});
	}

	private async drain(): Promise<void> {
		if (this.busy) return;
		this.busy = true;
		try {
			while (this.queue.length > 0) {
				const batch = this.queue.splice(0);
				try {
					const present = await this.recordOnce(batch[batch.length - 1].record, [
						...new Set(batch.flatMap((entry) => entry.values)),
					]);
					// Each entry learns what was there before it, the earlier entries of this batch
					// included: of two claims of one event in a batch (a Retry's, which skips what this
					// process knows, and a new execution's), only the first may find the event new.
					const before = new Set(present);
					for (const entry of batch) {
						entry.resolve(new Set(entry.values.filter((value) => before.has(value))));
						for (const value of entry.values) before.add(value);
					}
				} catch (error) {
					for (const entry of batch) entry.reject(error);
				}
			}
		} finally {
			this.busy = false;
		}
	}

	/**
	 * Any waiting execution's record will do: they all name the same row. A failed call is tried
	 * once more: n8n creates the row with a plain insert, so the first calls of two processes can
	 * collide on its key, and the second try finds the row.
	 */
	private async recordOnce(record: ProcessedRecord, values: string[]): Promise<Set<string>> {
		try {
			return await record.checkAndRecord(values);
		} catch {
			await this.wait(RECORD_RETRY_MS);
			return await record.checkAndRecord(values);
		}
	}
}

const RECORD_RETRY_MS = 100;

/**
 * Which execution runs an event, decided inside the execution (so that only an event n8n has
 * stored is ever claimed), across every process that shares n8n's database. Within one process
 * the first execution of an event wins at once; across processes the claims are written to n8n's
 * record and the one that still stands after `settleMs` wins.
 */
/** A claim this process made or announced: when, and whether it stood in n8n's record (false: recording it failed). */
interface KnownClaim {
	at: number;
	stood: Promise<boolean>;
	/** Set once a claim of the event stood in n8n's record (this one, or another found there). */
	decided?: boolean;
	/**
	 * Whoever announced it keeps the event until a claim of it stands, also if this one fails or
	 * never comes (a poll, which reads it again): a delivery may leave the event to it.
	 */
	kept?: boolean;
}

/**
 * How long an announced claim is waited for at most: then it is forgotten (its execution may never
 * run). As long as a slot is held for an execution that never said it ended: under load n8n's own
 * queue can hold a started execution for tens of seconds.
 */
export const ANNOUNCED_CLAIM_MAX_MS = 2 * 60_000;

export class EventClaims {
	private readonly recorders = new Map<string, SerialRecorder>();
	private readonly known = new Map<string, Map<string, KnownClaim>>();
	private readonly announced = new Map<string, Map<string, KnownClaim>>();

	constructor(
		private readonly limits: ClaimLimits,
		private readonly wait: (ms: number) => Promise<void> = sleep,
	) {}

	/** Whether an execution of this process has taken `eventId`: it runs or ran it, or found that another did. */
	has(scope: string, eventId: string, now: number): boolean {
		return this.knownIn(scope, now).has(eventId);
	}

	/**
	 * The events whose claims stood in n8n's record as executions of this process found them, newest
	 * first, up to `limit`: what this process can tell others that never see those executions.
	 */
	stoodHere(scope: string, now: number, limit: number): string[] {
		if (limit <= 0) return [];
		// One pass keeping the newest `limit` in a ring: every worker answer asks, and copying a map
		// of up to maxCount claims each time would cost more than the answer.
		const ring: string[] = [];
		let next = 0;
		for (const [eventId, claim] of this.knownIn(scope, now)) {
			if (claim.decided !== true) continue;
			ring[next] = eventId;
			next = (next + 1) % limit;
		}
		return ring.map((_, age) => ring[(next - 1 - age + 2 * ring.length) % ring.length]);
	}

	/**
	 * Claims of `eventIds` that stood in n8n's record, as another process found them (stoodHere
	 * there): this process then knows those events are taken, as if one of its executions had found
	 * so.
	 */
	learn(scope: string, eventIds: string[], now: number): void {
		const known = this.knownIn(scope, now);
		for (const eventId of eventIds)
			if (!known.has(eventId))
				this.remember(known, eventId, { at: now, stood: Promise.resolve(true), decided: true });
	}

	/**
	 * A claim of `eventId` made or announced in this process: `stood` settles true once a claim of it
	 * stood in n8n's record (this execution's, or another's it found there), false if recording it
	 * failed; `kept` says whether its maker keeps the event until then (see announce). Undefined when
	 * there is none. A poll leaves such an event out, and a delivery of it is answered, instead of
	 * starting an execution that would stop at the trigger.
	 */
	claimedHere(
		scope: string,
		eventId: string,
		now: number,
	): { stood: Promise<boolean>; kept: boolean } | undefined {
		const claim =
			this.knownIn(scope, now).get(eventId) ?? this.announcedIn(scope, now).get(eventId);
		return claim && { stood: claim.stood, kept: claim.kept === true };
	}

	/**
	 * An execution this process started for `eventId` (by a poll, or for a delivery) will claim it:
	 * `stood` settles with whether a claim of it stood. Until then, or ANNOUNCED_CLAIM_MAX_MS,
	 * claimedHere gives it, so the other trigger of the workflow waits for it instead of starting an
	 * execution of its own. `kept`: the announcer keeps the event until a claim of it stands.
	 */
	announce(
		scope: string,
		eventId: string,
		stood: Promise<boolean>,
		now: number,
		{ kept = false }: { kept?: boolean } = {},
	): void {
		const announced = this.announcedIn(scope, now);
		announced.delete(eventId);
		announced.set(eventId, { at: now, stood, kept });
		void stood.then(() => {
			if (announced.get(eventId)?.stood === stood) announced.delete(eventId);
		});
	}

	/** The announced claim of `eventId` now has a maker that keeps the event (see announce). */
	keep(scope: string, eventId: string, now: number): void {
		const claim = this.announcedIn(scope, now).get(eventId);
		if (claim) claim.kept = true;
	}

	/**
	 * `claimant` makes the claim its own: when n8n runs the same execution again (queue mode on
	 * n8n 1.x re-runs a job whose worker died), it finds its own claim from the earlier run and
	 * answers 'rerun', because nothing tells whether that run got past the trigger.
	 * `askRecord` skips what this process knows and asks n8n's record: a Retry of a run cut short
	 * must learn whether the claim there is its own, though this process has seen the event since.
	 */
	async claim(
		scope: string,
		eventId: string,
		claimant: string,
		record: ProcessedRecord,
		now: number,
		{ askRecord = false, soleWriter = false }: ClaimOptions = {},
	): Promise<ClaimOutcome> {
		const known = this.knownIn(scope, now);
		if (known.has(eventId) && !askRecord) return 'repeat';
		let stood: (decided: boolean) => void = () => {};
		const claim: KnownClaim = { at: now, stood: new Promise((resolve) => (stood = resolve)) };
		this.remember(known, eventId, claim);
		let decided = false;
		try {
			const outcome = await this.settle(
				this.recorderFor(scope),
				eventId,
				`claim ${eventId} ${claimant}`,
				record,
				soleWriter ? undefined : this.limits.settleMs,
			);
			decided = true;
			return outcome;
		} finally {
			claim.decided = decided;
			stood(decided);
			// Undecided (the record failed): a later delivery of the event may claim it again.
			if (!decided) known.delete(eventId);
		}
	}

	/**
	 * Writes the event with this execution's token, waits, and reads again: the token still there
	 * means this claim stood. The event there without the token means another claim stood. Neither
	 * means a concurrent write dropped both, and this read wrote them again. With no `settleMs`
	 * (no other writer), the claim written in round 0 stands.
	 */
	private async settle(
		recorder: SerialRecorder,
		eventId: string,
		token: string,
		record: ProcessedRecord,
		settleMs: number | undefined,
	): Promise<ClaimOutcome> {
		const event = `event ${eventId}`;
		// Round 0 writes the claim; a token already there is this execution's own, from an earlier run of it.
		for (let round = 0; round <= this.limits.maxRounds; round++) {
			if (round > 0 && settleMs !== undefined) await this.wait(settleMs);
			const present = await recorder.checkAndRecord(record, [event, token]);
			if (present.has(token)) return round === 0 ? 'rerun' : 'first';
			if (present.has(event)) return 'repeat';
			if (settleMs === undefined) return 'first';
		}
		throw new Error(
			`Event ${eventId} could not be recorded as run: other n8n processes kept overwriting n8n's record of this trigger`,
		);
	}

	/** Keeps `claim` as the newest, forgetting the oldest beyond the count kept. */
	private remember(known: Map<string, KnownClaim>, eventId: string, claim: KnownClaim): void {
		known.delete(eventId);
		// Insertion order is claim order: the oldest are at the front.
		for (const oldest of known.keys()) {
			if (known.size < this.limits.maxCount) break;
			known.delete(oldest);
		}
		known.set(eventId, claim);
	}

	private recorderFor(scope: string): SerialRecorder {
		let recorder = this.recorders.get(scope);
		if (!recorder) {
			recorder = new SerialRecorder(this.wait);
			this.recorders.set(scope, recorder);
		}
		return recorder;
	}

	private knownIn(scope: string, now: number): Map<string, KnownClaim> {
		return this.entriesIn(this.known, scope, now, this.limits.maxAgeMs);
	}

	private announcedIn(scope: string, now: number): Map<string, KnownClaim> {
		return this.entriesIn(this.announced, scope, now, ANNOUNCED_CLAIM_MAX_MS);
	}

	/** The claims of `scope` in `claims`, with those older than `maxAgeMs` dropped. */
	private entriesIn(
		claims: Map<string, Map<string, KnownClaim>>,
		scope: string,
		now: number,
		maxAgeMs: number,
	): Map<string, KnownClaim> {
		let entries = claims.get(scope);
		if (!entries) {
			entries = new Map();
			claims.set(scope, entries);
		}
		// Insertion order is age order: the oldest are at the front.
		for (const [id, { at }] of entries) {
			if (now - at <= maxAgeMs) break;
			entries.delete(id);
		}
		return entries;
	}
}

/**
 * n8n's read and write of the row take milliseconds on an idle PostgreSQL, but on a busy machine
 * one took longer than 500 ms (the settle this had before): another process's write then dropped
 * claims already counted, and 3 of 20 events ran again when delivered to another webhook
 * processor. 2 s covers that; the workflow's next node starts about 2 s after the event arrives
 * (the answer does not wait), except a pulled event's run in the process that polled it
 * (ClaimOptions.soleWriter). This process remembers 10,000 claims per trigger for 7 days
 * (longer than the service retries).
 */
export const eventClaims = new EventClaims({
	settleMs: 2_000,
	maxRounds: 20,
	maxCount: 10_000,
	maxAgeMs: 7 * 24 * 60 * 60 * 1000,
});
