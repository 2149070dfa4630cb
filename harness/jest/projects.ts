/**
 * The jest projects of the suites that run on both n8n majors: one project per major, so jest's
 * two workers run a file on 2.x and on 1.x side by side instead of one after the other. Loaded by
 * jest.config.js (end to end), jest.recovery.config.js (kills and catch-up) and jest.queue.config.js
 * (queue mode).
 */
import type { Config } from 'jest';

import { runtimeVersions } from '../runtime-versions';

export const COMMON: Config = {
	// Jest's node environment, recording each file's CPU time for the timing report.
	testEnvironment: '<rootDir>/harness/jest/measured-environment.cjs',
	// Type errors are caught by `npm run typecheck`; tests only transpile, which keeps them fast.
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.tools.json', diagnostics: false }] },
	testMatch: ['**/*.test.ts'],
};

/** The runtimes installed once, both at once, before the first file that needs one. */
const INSTALL_RUNTIMES: Config = { globalSetup: '<rootDir>/harness/jest/install-runtimes.cjs' };

const SUITES = {
	// And the n8n its files share (harness/n8n/shared.ts), started beside the first files.
	e2e: {
		variable: 'SVC_E2E_N8N',
		root: '<rootDir>/test/e2e',
		hooks: {
			globalSetup: '<rootDir>/harness/jest/shared-n8n-setup.cjs',
			globalTeardown: '<rootDir>/harness/jest/shared-n8n-teardown.cjs',
		},
	},
	queue: { variable: 'SVC_QUEUE_N8N', root: '<rootDir>/test/queue', hooks: INSTALL_RUNTIMES },
	recovery: { variable: 'SVC_E2E_N8N', root: '<rootDir>/test/recovery', hooks: INSTALL_RUNTIMES },
} as const;

/** One project per major the suite's variable picks (SVC_E2E_N8N or SVC_QUEUE_N8N; default both). */
export function perMajorProjects(suite: keyof typeof SUITES): Config[] {
	const { variable, root, hooks } = SUITES[suite];
	return runtimeVersions(variable).map((major) => ({
		...COMMON,
		displayName: `${suite}, n8n ${major}`,
		roots: [root],
		testEnvironmentOptions: { n8nMajor: major, variable },
		...hooks,
	}));
}

/** What every run of the suites shares. */
export const RUN: Config = {
	// Two workers on 2 cores: the n8n suites spend most of their time waiting on n8n (polls,
	// retries, restarts), so two files side by side, one per major, take about the time of one.
	maxWorkers: 2,
	testTimeout: 30000,
	// A worker ends about 0.6 s after its last file on 2 cores (its loop already empty: Node tearing
	// down a heap that held n8n's packages), past jest's default 500 ms, after which jest kills it
	// and reports a leak. Measured 2026-11-28: 'exit' in the worker 1 ms after jest's end message,
	// the process gone 620–670 ms after it. A worker that truly hangs is still killed, after 5 s.
	workerGracefulExitTimeout: 5_000,
	// Where the time went (slowest files, n8n starts, runtime installs): .tmp/timing/<run>.md.
	reporters: ['default', '<rootDir>/harness/jest/timing-reporter.cjs'],
	// The files marked @startsFirst first, on a fresh clone too (harness/jest/test-order.ts).
	testSequencer: '<rootDir>/harness/jest/test-sequencer.cjs',
};
