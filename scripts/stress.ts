/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * `npm run test:stress -- --rounds 5 --load 2`: the jest suites, round after round, beside busy
 * processes that keep the CPUs occupied, so that a test which only passes on an idle machine
 * shows up here rather than on a newcomer's first `npm test`.
 *
 *   --rounds N        rounds of the whole selection (default 3)
 *   --load K          busy processes beside the suites, each spinning one CPU (default 2)
 *   --suites a,b      unit, engine, sandbox, e2e, editor, or test file paths (default unit,engine,sandbox)
 *   --round-minutes M a round still running after M minutes is stopped and counted as failed (default 30)
 *
 * Prints each test that failed with its failures out of the rounds, and the total; exits 1 on any
 * failure. The busy processes and jest run in their own process groups (harness/process-groups.ts),
 * stopped on every way out: normal end, error, SIGINT/SIGTERM/SIGHUP, uncaught exception.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { JestFailures, describeFailures } from '../harness/jest-failures';
import { runJest } from '../harness/jest-run';
import { childEnv } from '../harness/child-env';
import { runCommand } from '../harness/commands';
import { logTail } from '../harness/log-tail';
import type { ProcessGroup } from '../harness/process-groups';
import { spawnGroup } from '../harness/process-groups';
import { PROJECT_DIR, TMP_DIR } from '../harness/project';

const SUITES: Record<string, string> = {
	unit: 'test/unit',
	engine: 'test/engine',
	sandbox: 'test/sandbox',
	e2e: 'test/e2e',
	editor: 'test/editor',
};
/** The editor suite drives one browser: its file runs alone, and jest.config.js leaves it out unless asked. */
const EDITOR_ARGS = ['--runInBand', '--testPathIgnorePatterns', '/node_modules/'];
/** One folder per run, so that two runs side by side keep their reports apart. */
const OUT_DIR = join(TMP_DIR, 'stress', new Date().toISOString().replace(/[:.]/g, '-'));

interface Options {
	rounds: number;
	load: number;
	paths: string[];
	roundMs: number;
}

function options(): Options {
	const { values } = parseArgs({
		options: {
			rounds: { type: 'string', default: '3' },
			load: { type: 'string', default: '2' },
			suites: { type: 'string', default: 'unit,engine,sandbox' },
			'round-minutes': { type: 'string', default: '30' },
		},
		strict: true,
	});
	const whole = (name: string, text: string, least: number): number => {
		const value = Number(text);
		if (!Number.isInteger(value) || value < least)
			throw new Error(`--${name} takes a whole number, ${least} or more (got ${text})`);
		return value;
	};
	const paths = values.suites
		.split(',')
		.map((suite) => suite.trim())
		.filter(Boolean)
		.map((suite) => {
			if (suite.includes('/')) return suite;
			const path = SUITES[suite];
			if (!path)
				throw new Error(
					`--suites: ${suite} is not one of ${Object.keys(SUITES).join(', ')} (or a test path)`,
				);
			return path;
		});
	if (paths.length === 0) throw new Error('--suites names no suite');
	return {
		rounds: whole('rounds', values.rounds, 1),
		load: whole('load', values.load, 0),
		paths,
		roundMs: whole('round-minutes', values['round-minutes'], 1) * 60_000,
	};
}

/** The busy processes: each a node that spins one CPU until it is killed. */
const busy: ProcessGroup[] = [];

async function stopBusy(): Promise<void> {
	await Promise.all(busy.splice(0).map(async (group) => await group.kill()));
}

function startBusy(count: number): void {
	for (let index = 0; index < count; index++) {
		busy.push(
			spawnGroup(process.execPath, ['-e', 'for (;;) {}'], {
				env: childEnv(),
				logFile: join(OUT_DIR, `busy-${index + 1}.log`),
			}),
		);
	}
}

interface Round {
	seconds: number;
	/** Full names of the tests that failed, and of the suites that could not run. */
	failed: string[];
	ran: number;
}

async function runRound(round: number, options: Options): Promise<Round> {
	const logFile = join(OUT_DIR, `round-${round}.log`);
	const started = Date.now();
	// Two workers beside the busy processes, as the suites were proven under load: the third
	// worker jest.config.js gives `npm test` fills the end-to-end files' waits, not these files'.
	const editor = options.paths.includes(SUITES.editor);
	// The paths first: --testPathIgnorePatterns takes every argument after it.
	const run = await runJest([...options.paths, ...(editor ? EDITOR_ARGS : ['--maxWorkers=2'])], {
		reportFile: join(OUT_DIR, `round-${round}.json`),
		logFile,
		timeoutMs: options.roundMs,
	});
	const seconds = Math.round((Date.now() - started) / 100) / 10;
	const overran = `(round ${round}: still running after ${options.roundMs / 60_000} min)`;
	if (!run.outcome) {
		console.log(`--- last lines of ${logFile} ---\n${await logTail(logFile)}`);
		return {
			seconds,
			failed: [
				run.overran
					? overran
					: `(round ${round}: jest exited with code ${run.exitCode} and wrote no report)`,
			],
			ran: 0,
		};
	}
	const { passed, failed, brokenFiles } = run.outcome;
	const failures = [
		...failed,
		...brokenFiles.map((file) => `${file.path} (the file failed: ${file.why})`),
	];
	if (run.overran) failures.push(overran);
	if (failures.length > 0) {
		// Why, from jest's output, which otherwise stays in the round's log.
		const reasons = new JestFailures();
		for (const line of (await readFile(logFile, 'utf8')).split('\n')) reasons.add(line);
		if (reasons.failures.length > 0)
			console.log(`round ${round}, from ${logFile}:\n${describeFailures(reasons.failures)}`);
	}
	return { seconds, failed: failures, ran: passed.length + failed.length };
}

async function main(): Promise<number> {
	const opts = options();
	await mkdir(OUT_DIR, { recursive: true });
	if (opts.paths.some((path) => path.startsWith('test/e2e') || path.startsWith('test/editor'))) {
		// The end-to-end and editor suites install the packed package, which is built from dist/.
		console.log('building dist/ for the suites in a real n8n');
		const build = await runCommand('npm', ['run', 'build'], { cwd: PROJECT_DIR, inherit: true });
		if (build.code !== 0) throw new Error(`npm run build failed (exit ${build.code})`);
	}
	console.log(
		`${opts.rounds} round(s) of ${opts.paths.join(' ')} beside ${opts.load} busy process(es); logs and reports in ${OUT_DIR}`,
	);
	startBusy(opts.load);
	const failures = new Map<string, number>();
	const durations: number[] = [];
	try {
		for (let round = 1; round <= opts.rounds; round++) {
			const load = loadavg()[0].toFixed(1);
			const result = await runRound(round, opts);
			durations.push(result.seconds);
			for (const name of result.failed) failures.set(name, (failures.get(name) ?? 0) + 1);
			console.log(
				`round ${round}/${opts.rounds}: ${result.ran} tests, ${result.failed.length} failed, ${result.seconds} s (load average ${load} at the start)`,
			);
		}
	} finally {
		await stopBusy();
	}
	const total = [...failures.values()].reduce((sum, count) => sum + count, 0);
	console.log(
		`\nrounds: ${opts.rounds}, busy processes: ${opts.load}, durations: ${durations.map((seconds) => `${seconds} s`).join(', ')}`,
	);
	if (failures.size > 0) {
		console.log('failures (test → failed rounds/rounds):');
		for (const [name, count] of [...failures.entries()].sort(
			(a, b) => b[1] - a[1] || a[0].localeCompare(b[0]),
		))
			console.log(`  ${name} → ${count}/${opts.rounds}`);
	}
	console.log(`total: ${total} failure(s)`);
	return total === 0 ? 0 : 1;
}

// harness/live-groups.ts kills the process groups still alive on exit and on SIGINT/SIGTERM/SIGHUP;
// these make sure the script then ends, with a status that says it did not finish.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
	process.on(signal, () => {
		console.error(`\nstopped by ${signal}; busy processes and jest killed`);
		process.exit(1);
	});
}
process.on('uncaughtException', (error) => {
	console.error(error);
	process.exit(1);
});
process.on('unhandledRejection', (error) => {
	console.error(error);
	process.exit(1);
});

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		console.error(error instanceof Error ? error.message : error);
		process.exitCode = 1;
		void stopBusy().finally(() => process.exit(1));
	},
);
