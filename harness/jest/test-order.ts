/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { readFileSync } from 'node:fs';

import type { Test } from '@jest/test-result';
import TestSequencer from '@jest/test-sequencer';

import { isRuntimeInstalled } from '../n8n-runtime/install';
import type { RuntimeVersion } from '../n8n-runtime/install';

/** The pragma, in a test file's opening comment, of a file jest should start before the rest. */
const STARTS_FIRST = /^\/\*\*(?:(?!\*\/)[\s\S])*@startsFirst\b/;

export function startsFirst(path: string): boolean {
	return STARTS_FIRST.test(readFileSync(path, 'utf8'));
}

/** The n8n major a file runs against: its project's (harness/jest/projects.ts), none for the rest. */
function n8nMajorOf(test: Test): RuntimeVersion | undefined {
	return test.context.config.testEnvironmentOptions.n8nMajor as RuntimeVersion | undefined;
}

/** Files marked `@startsFirst` before the rest, each group in `tests`' order. */
function markedFirst(tests: Test[]): Test[] {
	const first = tests.filter((test) => startsFirst(test.path));
	return [...first, ...tests.filter((test) => !first.includes(test))];
}

/**
 * Jest's order, except that files marked `@startsFirst` go first. On a fresh clone (CI's, a
 * newcomer's) jest knows no file's duration and starts the largest first, but a file that waits on
 * n8n's minute polls is small and long: started last, it alone sets the run's end (a cold
 * `npm test`, 2026-12-05: test/e2e/pull-trigger-republish.test.ts, 4 KB and 180 s, began 194 s
 * into a 374 s run).
 *
 * While an n8n runtime the run needs is not installed yet (a newcomer's first `npm test`), the
 * files that need no n8n go first: they run during its install (about 3 minutes on 2 cores),
 * where the files that need it would only wait for it, each holding one of jest's workers.
 */
export default class MarkedFirstSequencer extends TestSequencer {
	override async sort(tests: Test[]): Promise<Test[]> {
		const ordered = await super.sort(tests);
		const majors = [...new Set(ordered.map(n8nMajorOf))].filter((major) => major !== undefined);
		const installed = await Promise.all(majors.map(isRuntimeInstalled));
		const missing = majors.filter((_, index) => !installed[index]);
		if (missing.length === 0) return markedFirst(ordered);
		const waits = (test: Test): boolean => missing.includes(n8nMajorOf(test) as RuntimeVersion);
		return [
			...markedFirst(ordered.filter((test) => !waits(test))),
			...markedFirst(ordered.filter(waits)),
		];
	}
}
