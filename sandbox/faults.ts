import { badRequest } from './errors';
import { isPlainObject } from './json';
import { ROUTE_KEYS } from './routes';
import { seededRandom } from './seeded-random';

export interface FaultRule {
	/** "POST /v1/leads" (method and path template from the contract), or "*" (the default). */
	route?: string;
	/** Added before anything else happens, while an idempotency key is already claimed. */
	latencyMs?: number;
	/** Share of requests answered with one of errorStatuses. */
	errorRate?: number;
	errorStatuses?: number[];
	/** Share of requests whose write is performed and committed, then the socket destroyed. */
	resetRate?: number;
	/** Share of requests whose socket is destroyed before anything is done. */
	resetBeforeRate?: number;
	/** Share answered 409 idempotency_in_progress, doing nothing. */
	conflictRate?: number;
	/** Share answered 429 with Retry-After. */
	rateLimitedRate?: number;
	/** Retry-After of injected 429s, whether from rateLimitedRate or errorStatuses (default 1). */
	retryAfterSeconds?: number;
	/** Share never answered (until the client gives up or the sandbox closes). */
	hangRate?: number;
	/** Makes the rule's dice deterministic. */
	seed?: number;
}

export type FaultOutcome =
	| { kind: 'none' }
	| { kind: 'hang' }
	| { kind: 'resetBefore' }
	| { kind: 'error'; status: number; retryAfterSeconds: number }
	| { kind: 'rateLimited'; retryAfterSeconds: number }
	| { kind: 'conflict' }
	| { kind: 'resetAfter' };

interface FaultDecision {
	latencyMs: number;
	outcome: FaultOutcome;
}

const DEFAULT_ERROR_STATUSES = [500, 502, 503];
const DEFAULT_RETRY_AFTER_SECONDS = 1;
const RATE_FIELDS = [
	'hangRate',
	'resetBeforeRate',
	'errorRate',
	'rateLimitedRate',
	'conflictRate',
	'resetRate',
] as const;
const RULE_FIELDS = new Set<string>([
	'route',
	'latencyMs',
	'errorStatuses',
	'retryAfterSeconds',
	'seed',
	...RATE_FIELDS,
]);
const ANY_ROUTE = '*';

function checkRule(input: unknown, index: number): FaultRule {
	const where = `rules[${index}]`;
	if (!isPlainObject(input)) throw badRequest(`${where} must be an object`);
	for (const field of Object.keys(input)) {
		if (!RULE_FIELDS.has(field))
			throw badRequest(
				`${where}.${field} is not a fault rule field; known: ${[...RULE_FIELDS].join(', ')}`,
			);
	}
	const rule = input as FaultRule;
	if (rule.route !== undefined && rule.route !== ANY_ROUTE && !ROUTE_KEYS.includes(rule.route)) {
		throw badRequest(`${where}.route must be "${ANY_ROUTE}" or one of: ${ROUTE_KEYS.join(', ')}`);
	}
	for (const field of RATE_FIELDS) {
		const rate = rule[field];
		if (rate !== undefined && (typeof rate !== 'number' || !(rate >= 0 && rate <= 1)))
			throw badRequest(`${where}.${field} must be a number from 0 to 1`);
	}
	if (
		rule.latencyMs !== undefined &&
		(typeof rule.latencyMs !== 'number' ||
			!(rule.latencyMs >= 0) ||
			!Number.isFinite(rule.latencyMs))
	) {
		throw badRequest(`${where}.latencyMs must be a number of milliseconds, 0 or more`);
	}
	if (
		rule.retryAfterSeconds !== undefined &&
		(!Number.isInteger(rule.retryAfterSeconds) || rule.retryAfterSeconds < 0)
	) {
		throw badRequest(`${where}.retryAfterSeconds must be a whole number, 0 or more`);
	}
	if (rule.seed !== undefined && !Number.isInteger(rule.seed))
		throw badRequest(`${where}.seed must be an integer`);
	if (
		rule.errorStatuses !== undefined &&
		(!Array.isArray(rule.errorStatuses) ||
			rule.errorStatuses.length === 0 ||
			!rule.errorStatuses.every(
				(status) => Number.isInteger(status) && status >= 400 && status <= 599,
			))
	) {
		throw badRequest(
			`${where}.errorStatuses must be a non-empty array of statuses from 400 to 599`,
		);
	}
	return { ...rule };
}

export function checkFaultRules(input: unknown): FaultRule[] {
	if (!Array.isArray(input)) throw badRequest('rules must be an array of fault rules');
	return input.map(checkRule);
}

interface ActiveRule {
	rule: FaultRule;
	random: () => number;
}

/**
 * Decides, per request, whether to misbehave. One roll per request picks at most one outcome:
 * the rates are stacked in the order hang, resetBefore, error, rateLimited, conflict, reset, so
 * each gets exactly its share as long as they add up to 1 or less.
 */
export class FaultInjector {
	private active: ActiveRule[] = [];

	set(rules: FaultRule[]): FaultRule[] {
		this.active = checkFaultRules(rules).map((rule) => ({
			rule,
			random: rule.seed === undefined ? Math.random : seededRandom(rule.seed),
		}));
		return this.rules();
	}

	clear(): void {
		this.active = [];
	}

	rules(): FaultRule[] {
		return this.active.map(({ rule }) => ({ ...rule }));
	}

	/** A rule naming the route wins over a "*" rule, whatever their order. */
	decide(routeKey: string): FaultDecision | undefined {
		const found =
			this.active.find(({ rule }) => rule.route === routeKey) ??
			this.active.find(({ rule }) => rule.route === undefined || rule.route === ANY_ROUTE);
		if (!found) return undefined;
		const { rule, random } = found;
		return { latencyMs: rule.latencyMs ?? 0, outcome: this.roll(rule, random) };
	}

	private roll(rule: FaultRule, random: () => number): FaultOutcome {
		const dice = random();
		let band = 0;
		for (const field of RATE_FIELDS) {
			band += rule[field] ?? 0;
			if (dice >= band) continue;
			switch (field) {
				case 'hangRate':
					return { kind: 'hang' };
				case 'resetBeforeRate':
					return { kind: 'resetBefore' };
				case 'errorRate': {
					const statuses = rule.errorStatuses ?? DEFAULT_ERROR_STATUSES;
					return {
						kind: 'error',
						status: statuses[Math.floor(random() * statuses.length)],
						retryAfterSeconds: rule.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS,
					};
				}
				case 'rateLimitedRate':
					return {
						kind: 'rateLimited',
						retryAfterSeconds: rule.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS,
					};
				case 'conflictRate':
					return { kind: 'conflict' };
				case 'resetRate':
					return { kind: 'resetAfter' };
			}
		}
		return { kind: 'none' };
	}
}
