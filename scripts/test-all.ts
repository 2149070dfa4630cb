/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, no-console -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * `npm run test:all`: every suite CI runs, on one build. They are bound by CPU on 2 cores, so most
 * run one after another; the editor suite runs beside the end-to-end and recovery suites, which
 * mostly wait on n8n (polls, restarts). Each line of output is prefixed with its suite; every suite
 * runs to its end, and the command fails if any failed.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { childEnv } from '../harness/child-env';
import { NPM, runChecked } from '../harness/commands';
import { addLiveGroup, removeLiveGroup } from '../harness/live-groups';
import { markdownTable } from '../harness/markdown-table';
import { PROJECT_DIR } from '../harness/project';

interface Suite {
	name: string;
	/** A command under node_modules/.bin and its arguments. */
	bin: string;
	args: string[];
}

const suite = (name: string, bin: string, ...args: string[]): Suite => ({ name, bin, args });
const E2E = suite('e2e, package', 'jest', 'test/e2e', 'test/package');
const RECOVERY = suite('recovery', 'jest', '-c', 'jest.recovery.config.js');
// The same files as `npm test`'s unit, engine and sandbox suites, beside 2 busy processes.
const LOADED = suite(
	'unit, engine, sandbox (loaded)',
	'tsx',
	'scripts/stress.ts',
	'--rounds',
	'1',
	'--load',
	'2',
);
const QUEUE = suite('queue', 'jest', '-c', 'jest.queue.config.js');
const EDITOR = suite(
	'editor',
	'jest',
	'test/editor',
	'--runInBand',
	'--testPathIgnorePatterns',
	'/node_modules/',
);

/**
 * Steps one after another; in a step, its lanes side by side, each lane's suites in order. The
 * quick proof first, so that a broken package fails early: `npm test`'s end to end and package
 * files (its unit, engine and sandbox files run once, in the loaded round). The editor keeps about
 * 0.6 of a core busy and e2e and recovery about 1.2, so they share the 2 cores; the loaded round
 * and the queue suite (1.5 cores, 10 n8n processes) run alone: beside the queue suite, Chromium
 * could not load n8n's sign-in page within 30 s.
 */
const STEPS: Suite[][][] = [[[E2E, RECOVERY], [EDITOR]], [[LOADED]], [[QUEUE]]];

interface Outcome {
	name: string;
	code: number | null;
	seconds: number;
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
			// Suites side by side keep their n8n starts apart for their timing reports.
			SVC_TIMINGS_FILE: `timings-${suite.name.replace(/[^A-Za-z0-9]+/g, '-')}.jsonl`,
		}),
	});
	if (child.pid !== undefined) addLiveGroup(child.pid);
	for (const stream of [child.stdout, child.stderr]) {
		let rest = '';
		stream.setEncoding('utf8');
		stream.on('data', (chunk: string) => {
			const lines = (rest + chunk).split('\n');
			rest = lines.pop() ?? '';
			for (const line of lines) console.log(`[${suite.name}] ${line}`);
		});
		stream.on('end', () => rest && console.log(`[${suite.name}] ${rest}`));
	}
	const code = await new Promise<number | null>((done) => child.on('close', done));
	if (child.pid !== undefined) removeLiveGroup(child.pid);
	return { name: suite.name, code, seconds: Math.round((Date.now() - startedAt) / 1000) };
}

async function main(): Promise<void> {
	const startedAt = Date.now();
	// One build for all, instead of one per suite script.
	await runChecked('npm run build', NPM, ['run', 'build'], { cwd: PROJECT_DIR });
	const outcomes: Outcome[] = [];
	for (const lanes of STEPS)
		await Promise.all(
			lanes.map(async (lane) => {
				for (const suite of lane) outcomes.push(await run(suite));
			}),
		);
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
	if (outcomes.some(({ code }) => code !== 0)) process.exitCode = 1;
}

void main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
