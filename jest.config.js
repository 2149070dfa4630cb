const { require: requireTs } = require('tsx/cjs/api');

/** The majors the end-to-end suite runs on: SVC_E2E_N8N (v1, v2, all or a comma list; default all). */
const { runtimeVersions } = requireTs('./harness/runtime-versions.ts', __filename);

/** @type {import('jest').Config} */
const common = {
	testEnvironment: 'node',
	// Type errors are caught by `npm run typecheck`; tests only transpile, which keeps them fast.
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.tools.json', diagnostics: false }] },
	testMatch: ['**/*.test.ts'],
};

/** @type {import('jest').Config} */
module.exports = {
	// Two workers on 2 cores: the end-to-end files spend most of their time waiting on n8n (polls,
	// retries, restarts), so two of them side by side, one per major, take about the time of one.
	maxWorkers: 2,
	testTimeout: 30000,
	// Where the time went (slowest files, n8n starts, runtime installs): .tmp/timing.md.
	reporters: ['default', '<rootDir>/harness/jest/timing-reporter.cjs'],
	projects: [
		{
			...common,
			displayName: 'unit, engine, sandbox, package',
			roots: ['<rootDir>/test'],
			// The queue-mode and editor (real browser) suites are heavier and have their own scripts
			// (npm run test:queue, npm run test:editor); the end-to-end files are the projects below.
			testPathIgnorePatterns: [
				'/node_modules/',
				'<rootDir>/test/queue/',
				'<rootDir>/test/editor/',
				'<rootDir>/test/e2e/',
			],
		},
		...runtimeVersions('SVC_E2E_N8N').map((major) => ({
			...common,
			displayName: `e2e, n8n ${major}`,
			roots: ['<rootDir>/test/e2e'],
			testEnvironment: '<rootDir>/harness/jest/n8n-major-environment.ts',
			testEnvironmentOptions: { n8nMajor: major },
		})),
	],
};
