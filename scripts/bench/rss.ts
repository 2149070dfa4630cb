/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { readdirSync, readFileSync } from 'node:fs';

/** Resident set size of one process in KB (VmRSS), or undefined once it is gone. */
export function rssKb(pid: number): number | undefined {
	try {
		const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
		return match ? Number(match[1]) : undefined;
	} catch {
		return undefined;
	}
}

function parentOf(pid: number): number | undefined {
	try {
		// Field 4 of /proc/<pid>/stat, after the parenthesised command name (which may hold spaces).
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
	} catch {
		return undefined;
	}
}

/** Every live process below `root` (n8n's task runner, for instance), with its parent, nearest first. */
export function processTree(root: number): Map<number, number> {
	const byParent = new Map<number, number[]>();
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		const pid = Number(entry);
		const parent = parentOf(pid);
		if (parent === undefined) continue;
		byParent.set(parent, [...(byParent.get(parent) ?? []), pid]);
	}
	const found = new Map<number, number>();
	const queue = [root];
	while (queue.length > 0) {
		const parent = queue.shift() as number;
		for (const child of byParent.get(parent) ?? []) {
			found.set(child, parent);
			queue.push(child);
		}
	}
	return found;
}

export function descendants(root: number): number[] {
	return [...processTree(root).keys()];
}

export interface RssPeak {
	/** At start(), in KB. */
	startMainKb: number;
	peakMainKb: number;
	/** Sum over the descendants at the moment of their largest total (0 when there are none). */
	peakChildrenKb: number;
	/** main + descendants, largest sum seen. */
	peakTotalKb: number;
	samples: number;
}

/** A memory limit the sampler enforces: `reached` is called once, at the first sample above it. */
export interface RssLimit {
	totalKb: number;
	reached: () => void;
}

/** Samples a process and its descendants every `intervalMs` until stop(). */
export class RssSampler {
	private timer: NodeJS.Timeout | undefined;
	private peak: RssPeak = {
		startMainKb: 0,
		peakMainKb: 0,
		peakChildrenKb: 0,
		peakTotalKb: 0,
		samples: 0,
	};
	private children: number[] = [];

	constructor(
		private readonly pid: number,
		private readonly intervalMs = 100,
		private limit?: RssLimit,
	) {}

	start(): void {
		// The process tree rarely changes during a run: look it up once, then only read VmRSS.
		this.children = descendants(this.pid);
		const first = rssKb(this.pid) ?? 0;
		this.peak = {
			startMainKb: first,
			peakMainKb: first,
			peakChildrenKb: 0,
			peakTotalKb: first,
			samples: 0,
		};
		this.sample();
		this.timer = setInterval(() => this.sample(), this.intervalMs);
	}

	stop(): RssPeak {
		if (this.timer) clearInterval(this.timer);
		this.timer = undefined;
		this.sample();
		return { ...this.peak };
	}

	private sample(): void {
		const main = rssKb(this.pid) ?? 0;
		const children = this.children.reduce((sum, pid) => sum + (rssKb(pid) ?? 0), 0);
		this.peak.samples++;
		this.peak.peakMainKb = Math.max(this.peak.peakMainKb, main);
		this.peak.peakChildrenKb = Math.max(this.peak.peakChildrenKb, children);
		this.peak.peakTotalKb = Math.max(this.peak.peakTotalKb, main + children);
		if (this.limit && main + children > this.limit.totalKb) {
			const limit = this.limit;
			this.limit = undefined;
			limit.reached();
		}
	}
}
