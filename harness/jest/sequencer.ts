/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import Sequencer from '@jest/test-sequencer';
import type { Test } from '@jest/test-result';

import type { RuntimeVersion } from '../n8n-runtime/install';
import { isN8nRuntimeInstalled } from '../n8n-runtime/install';

/** The n8n major a test's project runs on (harness/jest/projects.ts), if any. */
const majorOf = (test: Test): RuntimeVersion | undefined =>
	(test.context.config.testEnvironmentOptions as { n8nMajor?: RuntimeVersion }).n8nMajor;

/**
 * Jest's order (slowest first, as its cache of past runs knows them), except while an n8n runtime
 * the run needs is not installed yet: then the files that need no n8n go first, so jest's workers
 * run them during the install (harness/jest/install-runtimes.ts) instead of waiting for it.
 */
export default class RuntimeAwareSequencer extends Sequencer {
	override async sort(tests: Test[]): Promise<Test[]> {
		const sorted = await super.sort(tests);
		const majors = new Set(sorted.map(majorOf).filter((major) => major !== undefined));
		const installed = await Promise.all([...majors].map(isN8nRuntimeInstalled));
		if (installed.every(Boolean)) return sorted;
		return [
			...sorted.filter((test) => majorOf(test) === undefined),
			...sorted.filter((test) => majorOf(test) !== undefined),
		];
	}
}
