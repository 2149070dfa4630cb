/**
 * The queue-mode capacity model, from (f-queue)'s 1-processor runs: the CPU each role spends per
 * accepted delivery, and from it the deliveries per second a deployment can take in and run for as
 * long as a burst lasts, by webhook processors and cores, checked against what this machine
 * measured with 1 and 2 processors. (A short burst can be answered faster where the processors
 * only queue the work, as the peer's do: the workers then catch up afterwards.)
 *
 *   deliveries/s ≈ min(processors ÷ processor CPU per delivery, workers ÷ worker CPU per delivery,
 *                      cores ÷ all roles' CPU per delivery)
 *
 * A webhook processor or a worker is one Node.js process: its event loop runs on one core, so one
 * processor accepts at most 1 ÷ its CPU per delivery however many cores are free, and so on for the
 * workers. All roles together can use no more than the cores there are. The sender (the service) is not part of a deployment's
 * machine and is left out, except in the check, where it shares this machine's cores.
 */
import type { Table } from '../report';
import { fmt, ratio } from '../stats';
import type { BurstRun } from './measure';
import { RECEIVER_LABEL } from './receivers';
import { acceptedDeliveries } from './tables';

const SENDER_LABEL = 'benchmark (sender, sandbox)';

/** The roles of a queue-mode deployment, by the labels the CPU split gives their processes. */
const ROLES: Array<{ role: string; owns: (label: string) => boolean }> = [
	{ role: 'webhook processors', owns: (label) => label.startsWith('n8n webhook-') },
	{ role: 'workers with their task runners', owns: (label) => label.startsWith('n8n worker-') },
	{ role: 'main', owns: (label) => label === 'n8n main' },
	{
		role: 'PostgreSQL, Redis, nginx',
		owns: (label) => ['postgres', 'redis-server', 'nginx'].includes(label),
	},
];

const PROCESSORS = [1, 2, 4, 8];
/** As (f-queue) runs them. */
const WORKERS = 2;
const CORES = [2, 4, 8, 16];

interface CpuPerDelivery {
	/** CPU-seconds per accepted delivery, per role. */
	byRole: Map<string, number>;
	total: number;
	processor: number;
	worker: number;
	/** The sender's, which shares the cores on this machine only. */
	sender: number;
}

function cpuPerDelivery(run: BurstRun): CpuPerDelivery {
	const accepted = Math.max(1, acceptedDeliveries(run));
	const byRole = new Map<string, number>();
	for (const { role, owns } of ROLES) {
		byRole.set(
			role,
			run.cpuSeconds.filter(([label]) => owns(label)).reduce((sum, [, used]) => sum + used, 0) /
				accepted,
		);
	}
	const sender = (run.cpuSeconds.find(([label]) => label === SENDER_LABEL)?.[1] ?? 0) / accepted;
	return {
		byRole,
		total: [...byRole.values()].reduce((sum, used) => sum + used, 0),
		processor: byRole.get('webhook processors') ?? 0,
		worker: byRole.get('workers with their task runners') ?? 0,
		sender,
	};
}

/** The model's accepted/s with `processors` webhook processors and WORKERS workers on `cores` cores (`extra` CPU-s per delivery shares them). */
function predictedRate(cpu: CpuPerDelivery, processors: number, cores: number, extra = 0): number {
	return Math.min(processors / cpu.processor, WORKERS / cpu.worker, cores / (cpu.total + extra));
}

export function tableCapacity(runs: BurstRun[], cores: number): Table {
	const pick = (receiver: BurstRun['receiver'], processors: number): BurstRun | undefined =>
		runs.find(
			(run) => run.receiver === receiver && run.setting.startsWith(`queue, ${processors} `),
		);
	const rows: string[][] = [];
	for (const receiver of ['svc', 'svc-list', 'svc-list-batch', 'peer'] as const) {
		const one = pick(receiver, 1);
		if (!one) continue;
		const cpu = cpuPerDelivery(one);
		const name = RECEIVER_LABEL[receiver];
		for (const [role, used] of cpu.byRole)
			rows.push([name, `CPU per accepted delivery: ${role}`, fmt(used * 1000, 'ms')]);
		rows.push([name, 'CPU per accepted delivery: all roles', fmt(cpu.total * 1000, 'ms')]);
		rows.push([
			name,
			'one processor at most (1 core ÷ its CPU per delivery)',
			`${fmt(1 / cpu.processor)}/s`,
		]);
		rows.push([
			name,
			`${WORKERS} workers at most (${WORKERS} cores ÷ their CPU per delivery)`,
			`${fmt(WORKERS / cpu.worker)}/s`,
		]);
		for (const machineCores of CORES) {
			const predictions = PROCESSORS.map(
				(processors) => `${processors}: ${fmt(predictedRate(cpu, processors, machineCores))}`,
			);
			rows.push([
				name,
				`predicted deliveries/s on ${machineCores} cores with ${WORKERS} workers, by processors`,
				predictions.join(' · '),
			]);
		}
		for (const processors of [1, 2]) {
			const measured = pick(receiver, processors);
			if (!measured) continue;
			// Here the sender shares the cores: it counts in the check.
			const predicted = predictedRate(cpu, processors, cores, cpu.sender);
			const handled = acceptedDeliveries(measured) / (measured.totalMs / 1000);
			rows.push([
				name,
				`this machine (${cores} cores, sender included), ${processors} processor${processors > 1 ? 's' : ''}: predicted ÷ measured deliveries/s until every execution ended`,
				`${fmt(predicted)} ÷ ${fmt(handled)} = ${fmt(ratio(predicted, handled), '×')} (answered at ${fmt(measured.acceptedPerSecond)}/s)`,
			]);
		}
	}
	return {
		title:
			'(f-queue) capacity model: CPU per accepted delivery by role (1-processor run) and the deliveries per second it predicts',
		columns: ['receiver', 'measure', 'value'],
		rows,
		notes: [
			`Deliveries taken in and run per second, for as long as a burst lasts ≈ min(processors ÷ processor CPU per delivery, workers ÷ worker CPU per delivery, cores ÷ all roles' CPU per delivery). A processor or a worker is one Node.js process, whose event loop runs on one core; all roles share the cores; more workers lift their bound. The sender is left out of the predictions (the service runs elsewhere) and counted in the check on this machine, where it shares the cores. A short burst can be answered faster where the processors only queue the work (the peer's): the workers catch up afterwards.`,
			'Limits: CPU only (disk, network and PostgreSQL locks are not modelled); CPU per delivery is taken from a run where every role had the same 2 cores, and may fall when processes stop contending; the 2 workers of (f-queue) throughout.',
		],
	};
}
