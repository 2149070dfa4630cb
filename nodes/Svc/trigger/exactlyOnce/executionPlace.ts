/**
 * Where a workflow's executions run, as this process learns it: 'here' once one of them ran in
 * the process that started it (n8n's regular mode, where every execution does), 'elsewhere' once
 * the process started some and none ran here (queue mode: workers run them). Both triggers of a
 * workflow tell it: Svc Trigger's receipts and Svc Pull Trigger's runs.
 */
import { settlesWithin } from '../../shared/waits';

type Place = 'here' | 'elsewhere';

const places = new Map<string, Place>();
/** Per scope, the deliveries waiting to learn the place. */
const waiting = new Map<string, Set<() => void>>();
/** Scopes whose place a delivery is learning: its execution, run alone, tells. */
const probes = new Set<string>();

function learn(scope: string, place: Place): void {
	places.set(scope, place);
	probes.delete(scope);
	for (const wake of waiting.get(scope) ?? []) wake();
	waiting.delete(scope);
}

export const executionPlace = {
	of: (scope: string): Place | undefined => places.get(scope),
	/** An execution of the workflow ran in the process that started it. */
	ranHere(scope: string): void {
		learn(scope, 'here');
	},
	/** The process started executions of the workflow and none ran here in time: unless one did before. */
	noneRanHere(scope: string): void {
		if (places.get(scope) !== 'here') learn(scope, 'elsewhere');
	},
	/**
	 * The place, for a delivery that would join a batch: known at once; or unknown and no delivery
	 * learning it, and then 'probe': this one runs alone and its execution tells; or what the probe's
	 * execution told within `waitMs` (undefined: still unknown, run alone).
	 */
	async forBatch(scope: string, waitMs: number): Promise<Place | 'probe' | undefined> {
		const known = places.get(scope);
		if (known !== undefined) return known;
		if (!probes.has(scope)) {
			probes.add(scope);
			return 'probe';
		}
		let wake = (): void => {};
		const learned = new Promise<void>((resolve) => (wake = resolve));
		const wakes = waiting.get(scope) ?? new Set();
		waiting.set(scope, wakes.add(wake));
		await settlesWithin(learned, waitMs);
		wakes.delete(wake);
		return places.get(scope);
	},
	/** The probe's delivery got no execution (answered 503): the next delivery probes. */
	probeEnded(scope: string): void {
		probes.delete(scope);
	},
};
