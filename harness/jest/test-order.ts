/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { readFileSync } from 'node:fs';

import type { Test } from '@jest/test-result';
import TestSequencer from '@jest/test-sequencer';

/** The pragma, in a test file's opening comment, of a file jest should start before the rest. */
const STARTS_FIRST = /^\/\*\*(?:(?!\*\/)[\s\S])*@startsFirst\b/;

export function startsFirst(path: string): boolean {
	return STARTS_FIRST.test(readFileSync(path, 'utf8'));
}

/**
 * Jest's order, except that files marked `@startsFirst` go first. On a fresh clone (CI's, a
 * newcomer's) jest knows no file's duration and starts the largest first, but a file that waits on
 * n8n's minute polls is small and long: started last, it alone sets the run's end (a cold
 * `npm test`, 2026-12-05: test/e2e/pull-trigger-republish.test.ts, 4 KB and 180 s, began 194 s
 * into a 374 s run).
 */
export default class MarkedFirstSequencer extends TestSequencer {
	override async sort(tests: Test[]): Promise<Test[]> {
		const ordered = await super.sort(tests);
		const first = new Set(ordered.filter((test) => startsFirst(test.path)));
		return [...first, ...ordered.filter((test) => !first.has(test))];
	}
}
