/**
 * `npm test`: unit, engine, sandbox and package tests, and the end-to-end suite on the current n8n
 * major (2.x). `SVC_E2E_N8N=all` (what `npm run test:all` sets) or `v1` runs the other major too.
 */
process.env.SVC_E2E_N8N = process.env.SVC_E2E_N8N || 'v2';
const { COMMON, RUN, perMajorProjects } = require('tsx/cjs/api').require(
	'./harness/jest/projects.ts',
	__filename,
);

/** @type {import('jest').Config} */
module.exports = {
	...RUN,
	// The end-to-end files spend much of their time waiting on n8n's minute polls and restarts
	// (the pull trigger's file: 190 s for 66 CPU-s): a third worker fills that wait. Measured warm on
	// 2 cores: 376 s with two workers, 281 s with three.
	maxWorkers: 3,
	projects: [
		{
			...COMMON,
			displayName: 'unit, engine, sandbox, package',
			roots: ['<rootDir>/test'],
			// The queue-mode suite (jest.queue.config.js), the kills and catch-up (jest.recovery.config.js)
			// and the editor suite (a real browser) have scripts of their own; the end-to-end files
			// are the projects below.
			testPathIgnorePatterns: [
				'/node_modules/',
				'<rootDir>/test/queue/',
				'<rootDir>/test/recovery/',
				'<rootDir>/test/editor/',
				'<rootDir>/test/e2e/',
			],
		},
		...perMajorProjects('e2e'),
	],
};
