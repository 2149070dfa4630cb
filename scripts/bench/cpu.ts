/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * How much CPU other processes took while the benchmark ran: the machine's busy time
 * (/proc/stat) minus the benchmark's own process tree (this process, n8n and its task runner,
 * the raw client, and every child already reaped). On 2 cores, anything else running skews
 * every figure, so the report says how much there was.
 */
import { readFileSync } from 'node:fs';

import { descendants, processTree } from './rss';

/** Linux reports both files in USER_HZ ticks, 100 per second on every common configuration. */
const TICKS_PER_SECOND = 100;

export interface CpuSnapshot {
	/** Busy ticks of the whole machine since boot. */
	machine: number;
	/** Ticks of this process tree, live and reaped. */
	own: number;
	at: number;
}

function machineBusyTicks(): number {
	const fields = readFileSync('/proc/stat', 'utf8')
		.split('\n')[0]
		.trim()
		.split(/\s+/)
		.slice(1)
		.map(Number);
	// user nice system idle iowait irq softirq steal: everything but idle and iowait.
	const [user, nice, system, , , irq, softirq, steal] = fields;
	return user + nice + system + irq + softirq + (steal ?? 0);
}

/**
 * utime + stime of one process, and with `reaped` also cutime + cstime (its children that ended),
 * 0 once it is gone.
 */
function processTicks(pid: number | 'self', reaped = true): number {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		// After "pid (comm) ": field 3 (state) is index 0, so utime (field 14) is index 11.
		const fields = stat
			.slice(stat.lastIndexOf(')') + 2)
			.split(' ')
			.map(Number);
		return fields[11] + fields[12] + (reaped ? fields[13] + fields[14] : 0);
	} catch {
		return 0;
	}
}

export function cpuSnapshot(): CpuSnapshot {
	const own =
		processTicks('self') +
		descendants(process.pid).reduce((sum, pid) => sum + processTicks(pid), 0);
	return { machine: machineBusyTicks(), own, at: performance.now() };
}

export interface OtherCpu {
	/** CPU seconds other processes used between the two snapshots. */
	seconds: number;
	/** The same as a share of all cores over that time. */
	share: number;
}

export function otherCpu(from: CpuSnapshot, to: CpuSnapshot, cores: number): OtherCpu {
	const seconds = Math.max(0, (to.machine - from.machine - (to.own - from.own)) / TICKS_PER_SECOND);
	const elapsed = (to.at - from.at) / 1000;
	return { seconds, share: elapsed > 0 ? seconds / (elapsed * cores) : 0 };
}

function commandName(pid: number): string {
	try {
		return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
	} catch {
		return 'gone';
	}
}

/** Ticks per live process of this benchmark's tree, each with the label it is counted under. */
type CpuSplitSnapshot = Map<number, { label: string; ticks: number }>;

/**
 * A labelled process's whole subtree takes its label (an n8n process and its task runner); any
 * other process below the benchmark counts under its command name (postgres, nginx…), and the
 * benchmark's own process under `selfLabel`.
 */
function cpuSplitSnapshot(
	labels: ReadonlyMap<number, string>,
	selfLabel: string,
): CpuSplitSnapshot {
	const tree = processTree(process.pid);
	const labelOf = (pid: number): string => {
		for (
			let current: number | undefined = pid;
			current !== undefined && current !== process.pid;
			current = tree.get(current)
		) {
			const label = labels.get(current);
			if (label) return label;
		}
		return commandName(pid);
	};
	// The benchmark's own time only: an n8n it started counts under its label, also after it ended.
	const snapshot: CpuSplitSnapshot = new Map([
		[process.pid, { label: selfLabel, ticks: processTicks('self', false) }],
	]);
	for (const pid of tree.keys())
		snapshot.set(pid, { label: labelOf(pid), ticks: processTicks(pid) });
	return snapshot;
}

/** CPU seconds per label between two snapshots, largest first; processes started in between count whole. */
function cpuSplit(from: CpuSplitSnapshot, to: CpuSplitSnapshot): Array<[string, number]> {
	const seconds = new Map<string, number>();
	for (const [pid, { label, ticks }] of to) {
		const used = ticks - (from.get(pid)?.ticks ?? 0);
		seconds.set(label, (seconds.get(label) ?? 0) + Math.max(0, used) / TICKS_PER_SECOND);
	}
	return [...seconds].sort(([, a], [, b]) => b - a);
}

/**
 * Splits the CPU of a run that a process may not survive: it looks every 0.25 s and keeps each
 * process's last figure, so an n8n killed mid-run still counts what it used until then.
 */
export class CpuSplitTracker {
	private readonly from: CpuSplitSnapshot;
	private readonly seen: CpuSplitSnapshot;
	private timer: NodeJS.Timeout | undefined;

	constructor(
		private readonly labels: ReadonlyMap<number, string>,
		private readonly selfLabel: string,
		private readonly intervalMs = 250,
	) {
		this.from = cpuSplitSnapshot(labels, selfLabel);
		this.seen = new Map(this.from);
	}

	start(): void {
		this.timer = setInterval(() => this.look(), this.intervalMs);
	}

	/** CPU seconds per label since the tracker was made, largest first. */
	stop(): Array<[string, number]> {
		if (this.timer) clearInterval(this.timer);
		this.timer = undefined;
		this.look();
		return cpuSplit(this.from, this.seen);
	}

	private look(): void {
		for (const [pid, entry] of cpuSplitSnapshot(this.labels, this.selfLabel)) {
			// A process that ended between listing and reading reads 0: keep what it had.
			if (entry.ticks >= (this.seen.get(pid)?.ticks ?? 0)) this.seen.set(pid, entry);
		}
	}
}
