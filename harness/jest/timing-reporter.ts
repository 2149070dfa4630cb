/* eslint-disable @n8n/community-nodes/no-restricted-imports, no-console -- tooling that runs in Node.js beside n8n, never inside it */
import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

import type { AggregatedResult, Reporter } from '@jest/reporters';

import { markdownTable } from '../markdown-table';
import { PROJECT_DIR, TMP_DIR } from '../project';
import { clearTimings, readTimings } from '../timings';

const REPORT_FILE = join(TMP_DIR, 'timing.md');
const SLOWEST_FILES = 12;

const seconds = (ms: number): string => (ms / 1000).toFixed(1);

/**
 * Where a run's time went, written to .tmp/timing.md at its end: the slowest test files (per
 * project, so per n8n major), the n8n starts and the runtime installs the harness recorded.
 */
export default class TimingReporter implements Pick<Reporter, 'onRunStart' | 'onRunComplete'> {
	async onRunStart(): Promise<void> {
		await clearTimings();
	}

	async onRunComplete(_contexts: unknown, results: AggregatedResult): Promise<void> {
		const files = results.testResults
			.map((file) => ({
				file: relative(PROJECT_DIR, file.testFilePath),
				project: file.displayName?.name ?? '',
				ms: file.perfStats.end - file.perfStats.start,
			}))
			.sort((a, b) => b.ms - a.ms);
		const byStep = new Map<string, { count: number; ms: number; longest: number }>();
		for (const timing of await readTimings()) {
			const key = `${timing.kind}: ${timing.label}`;
			const step = byStep.get(key) ?? { count: 0, ms: 0, longest: 0 };
			step.count += 1;
			step.ms += timing.ms;
			step.longest = Math.max(step.longest, timing.ms);
			byStep.set(key, step);
		}
		const wallMs = Date.now() - results.startTime;
		const slowest = files.slice(0, SLOWEST_FILES);
		const report = [
			'# Where the time went',
			'',
			`${results.numTotalTests} tests in ${files.length} files, ${seconds(wallMs)} s from start to end (the files' own times add up to ${seconds(files.reduce((sum, file) => sum + file.ms, 0))} s over jest's workers).`,
			'',
			markdownTable(
				['file', 'project', 's'],
				slowest.map((file) => [file.file, file.project, seconds(file.ms)]),
			),
			'',
			byStep.size === 0
				? 'No n8n started and no runtime installed.'
				: markdownTable(
						['step', 'times', 'total s', 'longest s'],
						[...byStep].map(([key, step]) => [
							key,
							String(step.count),
							seconds(step.ms),
							seconds(step.longest),
						]),
					),
			'',
		].join('\n');
		await writeFile(REPORT_FILE, report);
		console.log(
			`\nSlowest files: ${slowest
				.slice(0, 5)
				.map(
					(file) => `${file.file}${file.project ? ` (${file.project})` : ''} ${seconds(file.ms)} s`,
				)
				.join(', ')}. Full timing report: ${relative(PROJECT_DIR, REPORT_FILE)}`,
		);
	}
}
