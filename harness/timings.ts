/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** The costly set-up steps a run of the suites spends its time on, and each file's CPU time, for jest's timing report. */
import { appendFile, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { TMP_DIR } from './project';

const TIMINGS_FILE = join(TMP_DIR, 'timings.jsonl');

export interface Timing {
	/** `file cpu`: the CPU time of one test file, n8n's processes included (harness/jest/measured-environment.ts). */
	kind: 'n8n start' | 'n8n runtime install' | 'file cpu';
	/** What was started or installed, e.g. "n8n v2 main"; for `file cpu`, the file and its project. */
	label: string;
	ms: number;
	/** When it was recorded (ms since the epoch): a report counts those since its run started. */
	at?: number;
}

/** Appends one line: jest's workers record side by side, each line whole. */
export async function recordTiming(timing: Timing): Promise<void> {
	await mkdir(TMP_DIR, { recursive: true });
	await appendFile(TIMINGS_FILE, `${JSON.stringify({ ...timing, at: Date.now() })}\n`);
}

export async function readTimings(): Promise<Timing[]> {
	const text = await readFile(TIMINGS_FILE, 'utf8').catch(() => '');
	return text
		.split('\n')
		.filter((line) => line.trim() !== '')
		.map((line) => JSON.parse(line) as Timing);
}

export async function clearTimings(): Promise<void> {
	await rm(TIMINGS_FILE, { force: true });
}
