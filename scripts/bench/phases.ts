/* eslint-disable @n8n/community-nodes/no-restricted-imports, no-console -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * The benchmark's phases, each timed with how much CPU other processes on the machine took
 * meanwhile: on 2 cores, anything else running skews every figure, so the report says so.
 */
import { cpus } from 'node:os';

import { cpuSnapshot, otherCpu, type OtherCpu } from './cpu';
import { msAsSeconds } from './report';
import { fmt } from './stats';

export interface Phase {
	name: string;
	ms: number;
	other: OtherCpu;
	/** Measurements (named "(x) …"), not set-up. */
	measured: boolean;
}

export class Phases {
	readonly list: Phase[] = [];
	private readonly cores = cpus().length;
	private readonly started = performance.now();

	async run<T>(name: string, work: () => Promise<T>): Promise<T> {
		const before = cpuSnapshot();
		console.log(`\n${name}`);
		const result = await work();
		const after = cpuSnapshot();
		this.list.push({
			name,
			ms: after.at - before.at,
			other: otherCpu(before, after, this.cores),
			measured: name.startsWith('('),
		});
		return result;
	}

	elapsedMs(): number {
		return performance.now() - this.started;
	}

	/** CPU seconds other processes used during the measurements, and their share of all cores. */
	otherDuringMeasurements(): { seconds: number; share: number } {
		const measured = this.list.filter((phase) => phase.measured);
		const used = measured.reduce((sum, phase) => sum + phase.other.seconds, 0);
		const wallSeconds = measured.reduce((sum, phase) => sum + phase.ms, 0) / 1000;
		return { seconds: used, share: wallSeconds > 0 ? used / (wallSeconds * this.cores) : 0 };
	}

	markdown(): string {
		return [
			'#### Run time per phase',
			'',
			...this.list.map(
				({ name, ms, other }) =>
					`- ${name}: ${msAsSeconds(ms)} (other processes: ${fmt(other.seconds, 'CPU-s')}, ${fmt(other.share * 100)} %)`,
			),
			`- total: ${msAsSeconds(this.elapsedMs())}`,
			'',
		].join('\n');
	}
}
