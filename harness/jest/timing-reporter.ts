/* eslint-disable @n8n/community-nodes/no-restricted-imports, no-console -- tooling that runs in Node.js beside n8n, never inside it */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

import type { AggregatedResult, Config, Reporter } from '@jest/reporters';

import { groupCpuMs } from '../cpu-time';
import { markdownTable } from '../markdown-table';
import { startedSharedN8n } from '../n8n/shared';
import { PROJECT_DIR, TMP_DIR } from '../project';
import { clearTimings, readTimings } from '../timings';

const REPORT_DIR = join(TMP_DIR, 'timing');
const SLOWEST_FILES = 12;
const SLOWEST_TESTS = 15;

/**
 * The report's file, one per kind of run so that CI's runs one after another keep theirs: the
 * run's name from the config (the queue suite's), else the paths asked for, else `all`.
 */
function reportFile(globalConfig: Config.GlobalConfig, run: string | undefined): string {
	const { patterns } = globalConfig.testPathPatterns;
	const name =
		run ??
		(patterns.length > 0
			? patterns.map((pattern) => pattern.replace(/[^A-Za-z0-9]+/g, '-')).join('+')
			: 'all');
	return join(REPORT_DIR, `${name.replace(/^-+|-+$/g, '')}.md`);
}

const seconds = (ms: number): string => (ms / 1000).toFixed(1);

/**
 * Where a run's time went, written to .tmp/timing/<run>.md at its end: the slowest test files (per
 * project, so per n8n major), the n8n starts and the runtime installs the harness recorded.
 */
export default class TimingReporter implements Pick<Reporter, 'onRunComplete'> {
	private readonly file: string;

	constructor(globalConfig: Config.GlobalConfig, options: { run?: string } = {}) {
		this.file = reportFile(globalConfig, options.run);
	}

	async onRunComplete(_contexts: unknown, results: AggregatedResult): Promise<void> {
		const files = results.testResults
			.map((file) => ({
				file: relative(PROJECT_DIR, file.testFilePath),
				project: file.displayName?.name ?? '',
				ms: file.perfStats.end - file.perfStats.start,
			}))
			.sort((a, b) => b.ms - a.ms);
		const tests = results.testResults
			.flatMap((file) =>
				file.testResults.map((test) => ({
					name: test.fullName,
					project: file.displayName?.name ?? '',
					ms: test.duration ?? 0,
				})),
			)
			.sort((a, b) => b.ms - a.ms)
			.slice(0, SLOWEST_TESTS);
		// This run's: recorded since jest started (its globalSetup installs runtimes before any file).
		const timings = (await readTimings()).filter(({ at }) => (at ?? 0) >= performance.timeOrigin);
		await clearTimings();
		const cpuOf = new Map(
			timings.filter((timing) => timing.kind === 'file cpu').map((t) => [t.label, t.ms]),
		);
		// The n8n the end-to-end files share runs in no file: its CPU so far, while it still runs.
		const sharedCpu = startedSharedN8n().flatMap(({ version, pid }) => {
			const ms = groupCpuMs(pid);
			if (ms === undefined) return [];
			cpuOf.set(`the shared n8n ${version}`, ms);
			return [`the shared n8n ${version} ${seconds(ms)} s`];
		});
		const byStep = new Map<string, { count: number; ms: number; longest: number }>();
		for (const timing of timings.filter(({ kind }) => kind !== 'file cpu')) {
			const key = `${timing.kind}: ${timing.label}`;
			const step = byStep.get(key) ?? { count: 0, ms: 0, longest: 0 };
			step.count += 1;
			step.ms += timing.ms;
			step.longest = Math.max(step.longest, timing.ms);
			byStep.set(key, step);
		}
		const wallMs = Date.now() - results.startTime;
		const fileCpu = (file: { file: string; project: string }): number | undefined =>
			cpuOf.get(`${file.file} (${file.project})`);
		const cpuMs = [...cpuOf.values()].reduce((sum, ms) => sum + ms, 0);
		const slowest = files.slice(0, SLOWEST_FILES);
		const report = [
			'# Where the time went',
			'',
			`${results.numTotalTests} tests in ${files.length} files, ${seconds(wallMs)} s from start to end (the files' own times add up to ${seconds(files.reduce((sum, file) => sum + file.ms, 0))} s over jest's workers; CPU ${seconds(cpuMs)} s, n8n's processes included${sharedCpu.length > 0 ? `, ${sharedCpu.join(', ')}` : ''}).`,
			'',
			markdownTable(
				['file', 'project', 's', 'CPU s'],
				slowest.map((file) => {
					const cpu = fileCpu(file);
					return [file.file, file.project, seconds(file.ms), cpu === undefined ? '' : seconds(cpu)];
				}),
			),
			'',
			'The slowest tests (their own time, without the set-up they share):',
			'',
			markdownTable(
				['test', 'project', 's'],
				tests.map((test) => [test.name, test.project, seconds(test.ms)]),
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
		await mkdir(REPORT_DIR, { recursive: true });
		await writeFile(this.file, report);
		console.log(
			`\nSlowest files: ${slowest
				.slice(0, 5)
				.map(
					(file) => `${file.file}${file.project ? ` (${file.project})` : ''} ${seconds(file.ms)} s`,
				)
				.join(', ')}. Full timing report: ${relative(PROJECT_DIR, this.file)}`,
		);
	}
}
