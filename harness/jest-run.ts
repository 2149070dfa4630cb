/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** The project's jest suites run as a child, counted from jest's JSON report: for the stress rounds and the reliability report. */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { childEnv } from './child-env';
import { spawnGroup } from './process-groups';
import { PROJECT_DIR } from './project';
import { until } from './wait';

/** The part of `jest --json`'s report read here. */
interface JestReport {
	testResults: Array<{
		name: string;
		status: string;
		message?: string;
		assertionResults: Array<{ status: string; fullName: string }>;
	}>;
}

export interface JestOutcome {
	/** Full names of the tests that ran, by outcome: tests left out by a -t filter are reported as pending and counted in neither. */
	passed: string[];
	failed: string[];
	/** Files that failed without a failed test, so did not run at all (a syntax error, a hook that threw), each with jest's first line on why. */
	brokenFiles: Array<{ path: string; why: string }>;
}

export interface JestRun {
	/** Undefined when jest wrote no report. */
	outcome?: JestOutcome;
	exitCode: number | null;
	/** Still running after `timeoutMs`, and killed. */
	overran: boolean;
}

/**
 * Runs jest on `paths` (suite folders, files, and flags such as -t) in its own process group, so a
 * kill reaches its workers too; its output goes to `logFile`, its JSON report to `reportFile`.
 */
export async function runJest(
	paths: string[],
	options: { reportFile: string; logFile: string; timeoutMs?: number },
): Promise<JestRun> {
	await rm(options.reportFile, { force: true });
	await rm(options.logFile, { force: true });
	const jest = spawnGroup(
		join(PROJECT_DIR, 'node_modules', '.bin', 'jest'),
		['--ci', '--json', `--outputFile=${options.reportFile}`, ...paths],
		{
			cwd: PROJECT_DIR,
			env: childEnv({ NODE_OPTIONS: '--experimental-vm-modules' }),
			logFile: options.logFile,
		},
	);
	let overran = false;
	// The jest process is what this waits for; the limit only ends a run that hangs.
	await until('jest', () => jest.exited() !== undefined, {
		everyMs: 250,
		timeoutMs: options.timeoutMs ?? Infinity,
	}).catch(async () => {
		overran = true;
		await jest.kill();
	});
	const report = await readFile(options.reportFile, 'utf8').then(
		(text) => JSON.parse(text) as JestReport,
		() => undefined,
	);
	return { outcome: report && outcomeOf(report), exitCode: jest.exited()?.code ?? null, overran };
}

function outcomeOf(report: JestReport): JestOutcome {
	const outcome: JestOutcome = { passed: [], failed: [], brokenFiles: [] };
	for (const file of report.testResults) {
		const passed = file.assertionResults
			.filter((test) => test.status === 'passed')
			.map((test) => test.fullName);
		const failed = file.assertionResults
			.filter((test) => test.status === 'failed')
			.map((test) => test.fullName);
		outcome.passed.push(...passed);
		outcome.failed.push(...failed);
		if (file.status === 'failed' && failed.length === 0)
			outcome.brokenFiles.push({
				path: file.name.replace(`${PROJECT_DIR}/`, ''),
				why: (file.message ?? '').trim().split('\n')[0],
			});
	}
	return outcome;
}
