/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// The queue-mode and editor (real browser) suites are heavier and have their own scripts
	// (npm run test:queue, npm run test:editor).
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/queue/', '<rootDir>/test/editor/'],
	// Type errors are caught by `npm run typecheck`; tests only transpile, which keeps them fast.
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.tools.json', diagnostics: false }] },
	testTimeout: 30000,
};
