/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, no-console -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * `npm run test:all`: every suite CI runs, on one build, one after another. They are bound by CPU
 * on 2 cores (four jest workers took as long as two, at 98% CPU), so running two at once would
 * gain little and load timing checks beyond the loaded round's. Each line of output is prefixed
 * with its suite; every suite runs to its end, and the command fails if any failed.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { childEnv } from '../harness/child-env';
import { NPM, runChecked } from '../harness/commands';
import type { JestFailure } from '../harness/jest-failures';
import { JestFailures, describeFailures } from '../harness/jest-failures';
import { addLiveGroup, removeLiveGroup } from '../harness/live-groups';
import { markdownTable } from '../harness/markdown-table';
import { PROJECT_DIR } from '../harness/project';

interface Suite {
	name: string;
	/** A command under node_modules/.bin and its arguments. */
	bin: string;
	args: string[];
}

const jest = (name: string, ...args: string[]): Suite => ({ name, bin: 'jest', args });

/**
 * In this order: the quick proof first, so that a broken package fails early. `npm test`'s unit,
 * engine and sandbox files run once, in the loaded round (the same files beside 2 busy
 * processes), so the first suite is the rest of `npm test`: end to end and the package build.
 */
const SUITES: Suite[] = [
	jest('e2e, package', 'test/e2e', 'test/package'),
	jest('recovery', '-c', 'jest.recovery.config.js'),
	{
		name: 'unit, engine, sandbox (loaded)',
		bin: 'tsx',
		args: ['scripts/stress.ts', '--rounds', '1', '--load', '2'],
	},
	jest('queue', '-c', 'jest.queue.config.js'),
	jest('editor', 'test/editor', '--runInBand', '--testPathIgnorePatterns', '/node_modules/'),
];

interface Outcome {
	name: string;
	code: number | null;
	seconds: number;
	failures: JestFailure[];
}

/** Runs one suite in its own process group, each output line prefixed with the suite's name. */
async function run(suite: Suite): Promise<Outcome> {
	const startedAt = Date.now();
	const child = spawn(join(PROJECT_DIR, 'node_modules', '.bin', suite.bin), suite.args, {
		cwd: PROJECT_DIR,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
		// Every suite on both n8n majors, also those `npm test` runs on the current one only.
		env: childEnv({
			NODE_OPTIONS: '--experimental-vm-modules',
			SVC_E2E_N8N: process.env.SVC_E2E_N8N ?? 'all',
		}),
	});
	if (child.pid !== undefined) addLiveGroup(child.pid);
	// One reader per stream: lines of the two can arrive interleaved.
	const readers = [child.stdout, child.stderr].map((stream) => {
		const failures = new JestFailures();
		const print = (line: string): void => {
			console.log(`[${suite.name}] ${line}`);
			failures.add(line);
		};
		let rest = '';
		stream.setEncoding('utf8');
		stream.on('data', (chunk: string) => {
			const lines = (rest + chunk).split('\n');
			rest = lines.pop() ?? '';
			for (const line of lines) print(line);
		});
		stream.on('end', () => rest && print(rest));
		return failures;
	});
	const code = await new Promise<number | null>((done) => child.on('close', done));
	if (child.pid !== undefined) removeLiveGroup(child.pid);
	const seconds = Math.round((Date.now() - startedAt) / 1000);
	return {
		name: suite.name,
		code,
		seconds,
		failures: readers.flatMap((reader) => reader.failures),
	};
}

async function main(): Promise<void> {
	const startedAt = Date.now();
	// One build for all, instead of one per suite script.
	await runChecked('npm run build', NPM, ['run', 'build'], { cwd: PROJECT_DIR });
	const outcomes: Outcome[] = [];
	for (const suite of SUITES) outcomes.push(await run(suite));
	console.log(
		`\nEvery suite, ${Math.round((Date.now() - startedAt) / 1000)} s in all:\n\n${markdownTable(
			['suite', 'result', 's'],
			outcomes.map(({ name, code, seconds }) => [
				name,
				code === 0 ? 'passed' : `failed (exit ${code})`,
				String(seconds),
			]),
		)}`,
	);
	for (const { name, failures } of outcomes) {
		if (failures.length > 0) {
			console.log(`\nFailed in ${name}:\n${describeFailures(failures)}`);
		}
	}
	if (outcomes.some(({ code }) => code !== 0)) process.exitCode = 1;
}

void main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
