/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** CPU time from Linux's /proc: the costs the timing report adds up (undefined where there is no /proc). */
import { readdirSync, readFileSync } from 'node:fs';

/** Linux's clock ticks per second (`getconf CLK_TCK`), the unit of /proc's CPU times. */
const TICKS_PER_SECOND = 100;

/** A /proc/<pid>/stat's fields after the command's closing parenthesis, from the state (field 3) on. */
function statFields(pid: number | 'self'): string[] | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	} catch {
		return undefined;
	}
}

/** utime, stime, cutime and cstime: its own CPU and that of the children it has waited for. */
function cpuMsOf(fields: string[]): number {
	const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
	return (ticks / TICKS_PER_SECOND) * 1000;
}

/** CPU milliseconds a process spent so far, with the children it has waited for. */
export function processCpuMs(pid: number | 'self'): number | undefined {
	const fields = statFields(pid);
	return fields && cpuMsOf(fields);
}

/** CPU milliseconds the live processes of process group `pgid` spent so far (e.g. n8n and its task runner). */
export function groupCpuMs(pgid: number): number | undefined {
	let pids: string[];
	try {
		pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
	} catch {
		return undefined;
	}
	let total = 0;
	for (const pid of pids) {
		const fields = statFields(Number(pid));
		if (fields && Number(fields[2]) === pgid) total += cpuMsOf(fields);
	}
	return total;
}
