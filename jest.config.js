/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// The queue-mode suite is heavier and has its own script (npm run test:queue).
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/queue/'],
	// Type errors are caught by `npm run typecheck`; tests only transpile, which keeps them fast.
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.tools.json', diagnostics: false }] },
	testTimeout: 30000,
};
