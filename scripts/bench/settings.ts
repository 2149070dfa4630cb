/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** What one `npm run bench` measures, from its command line. */
import { totalmem } from 'node:os';
import { parseArgs } from 'node:util';

import {
	DEFAULT_RECEIVERS,
	QUEUE_RECEIVERS,
	RECEIVER_KINDS,
	type ReceiverKind,
} from './burst/receivers';

/** Every scenario, in the order they run and print. */
export const SCENARIOS = [
	'a',
	'b',
	'c',
	'd',
	'e',
	'k',
	't',
	'f',
	'f-settings',
	'f-queue',
	'p',
	'p-batch',
] as const;
export type ScenarioId = (typeof SCENARIOS)[number];

export interface BurstSettings {
	/** Deliveries in all, repeats included. */
	deliveries: number;
	/** Deliveries that send an earlier event again. */
	repeats: number;
	concurrency: number;
}

export interface Settings {
	only: ReadonlySet<ScenarioId>;
	repsA: number;
	/** (b) has a thin margin: more repetitions show its spread. */
	repsB: number;
	repsC: number;
	nA: number;
	nB: number;
	nC: number;
	nK: number;
	/** (p), (p-batch): the backlog the pull trigger drains, and how many single events time its latency. */
	pullBacklog: number;
	pullLatencySamples: number;
	latencyMs: number;
	ratePerSecond: number;
	/** The HTTP Request runs of (c) take a minute each and always end the same way: fewer repetitions. */
	cHttpReps: number;
	burst: BurstSettings;
	/** The receivers (f) bursts into, in this order; all of them unless `--receivers`. */
	receivers: ReceiverKind[];
	/** The receivers (f-queue) bursts into: all of its own unless `--receivers` names some of them. */
	queueReceivers: ReceiverKind[];
	/**
	 * How many times (f) bursts into each receiver, a round at a time: one run of a receiver differs
	 * from the next by up to 15 % on this kind of machine, so a ratio against a floor is judged on
	 * the median of the rounds' ratios.
	 */
	burstRounds: number;
	/**
	 * (f-queue)'s burst: the same shape, smaller by default (2,000), because 1 webhook processor
	 * on 2 cores answers about 10 a second and the full 5,000 would take the bench past 45 min.
	 */
	queueBurst: BurstSettings;
	build: boolean;
	/** A tarball to measure instead of building and packing this checkout (a candidate build, say). */
	tarball?: string;
	/** n8n settings the bursts' n8n processes run with, beside their defaults (to measure what one changes). */
	burstEnv: Record<string, string>;
	/**
	 * A burst's n8n (single main) is killed above this RSS, as a container's memory limit would:
	 * by default half the machine's memory, before the kernel has to pick what to kill.
	 */
	memoryLimitKb: number;
	quick: boolean;
	/** The n8n runtime measured (`--n8n=v1` for n8n 1.x; v2 by default). */
	n8n: 'v2' | 'v1';
}

/** A burst of `deliveries` at concurrency 16, a tenth of them repeats, as issue (f) describes. */
function burstOf(deliveries: number): BurstSettings {
	return { deliveries, repeats: Math.round(deliveries / 10), concurrency: 16 };
}

function wholeNumber(name: string, value: string | undefined, fallback: number): number {
	if (value === undefined) return fallback;
	const number = Number(value);
	if (!Number.isInteger(number) || number < 1)
		throw new Error(`--${name} must be a whole number, 1 or more`);
	return number;
}

/** `--burst-env=NAME=value,NAME=value`: n8n environment variables for the bursts. */
function environmentList(value: string | undefined): Record<string, string> {
	const env: Record<string, string> = {};
	for (const entry of (value ?? '').split(',').filter((part) => part.trim() !== '')) {
		const match = /^\s*([A-Z][A-Z0-9_]*)=(.*)$/.exec(entry);
		if (!match)
			throw new Error(`--burst-env takes NAME=value pairs separated by commas; got "${entry}"`);
		env[match[1]] = match[2].trim();
	}
	return env;
}

/** `--<option>=a,b`: some of `allowed`, in the order given; all of them when the option is absent. */
function choiceList<T extends string>(
	option: string,
	value: string | undefined,
	allowed: readonly T[],
	byDefault: readonly T[] = allowed,
): T[] {
	if (value === undefined) return [...byDefault];
	const chosen = value
		.split(',')
		.map((entry) => entry.trim())
		.filter(Boolean);
	const unknown = chosen.filter((entry) => !(allowed as readonly string[]).includes(entry));
	if (unknown.length > 0 || chosen.length === 0)
		throw new Error(`--${option} takes some of ${allowed.join(', ')}; got ${value}`);
	return chosen as T[];
}

export function settingsFrom(argv: string[]): Settings {
	const { values } = parseArgs({
		args: argv,
		options: {
			only: { type: 'string' },
			reps: { type: 'string' },
			quick: { type: 'boolean' },
			'no-build': { type: 'boolean' },
			tarball: { type: 'string' },
			'queue-deliveries': { type: 'string' },
			'burst-env': { type: 'string' },
			'memory-limit-mb': { type: 'string' },
			receivers: { type: 'string' },
			'burst-rounds': { type: 'string' },
			n8n: { type: 'string' },
		},
	});
	const quick = values.quick ?? false;
	const reps = (fallback: number, quickFallback: number): number =>
		wholeNumber('reps', values.reps, quick ? quickFallback : fallback);
	const only = new Set(choiceList('only', values.only, SCENARIOS));
	const receivers = choiceList('receivers', values.receivers, RECEIVER_KINDS, DEFAULT_RECEIVERS);
	const queueReceivers =
		values.receivers === undefined
			? [...QUEUE_RECEIVERS]
			: receivers.filter((kind) => QUEUE_RECEIVERS.includes(kind));
	if (only.has('f-queue') && queueReceivers.length === 0)
		throw new Error(
			`--receivers names none of (f-queue)'s receivers (${QUEUE_RECEIVERS.join(', ')}); got ${values.receivers}`,
		);
	return {
		only,
		repsA: reps(3, 1),
		repsB: reps(5, 2),
		repsC: reps(3, 1),
		nA: quick ? 300 : 10_000,
		nB: quick ? 100 : 1_000,
		nC: quick ? 200 : 2_000,
		nK: quick ? 100 : 1_000,
		pullBacklog: quick ? 300 : 5_000,
		pullLatencySamples: quick ? 1 : 3,
		latencyMs: 20,
		ratePerSecond: 50,
		cHttpReps: 1,
		burst: burstOf(quick ? 300 : 5_000),
		receivers,
		queueReceivers,
		burstRounds: wholeNumber('burst-rounds', values['burst-rounds'], 1),
		queueBurst: burstOf(
			wholeNumber('queue-deliveries', values['queue-deliveries'], quick ? 300 : 2_000),
		),
		build: !(values['no-build'] ?? false) && values.tarball === undefined,
		tarball: values.tarball,
		burstEnv: environmentList(values['burst-env']),
		memoryLimitKb:
			1024 *
			wholeNumber(
				'memory-limit-mb',
				values['memory-limit-mb'],
				Math.round(totalmem() / 1024 / 1024 / 2),
			),
		n8n: choiceList('n8n', values.n8n, ['v2', 'v1'] as const, ['v2'])[0],
		quick,
	};
}
