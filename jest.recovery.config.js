/**
 * `npm run test:recovery`: n8n killed in the middle of a burst or a backlog, and the catch-up
 * after downtime, one project per n8n major, side by side. Minutes of polls and bursts of 600
 * events each: `npm test` leaves them to this suite, and `npm run test:all` (CI) runs it.
 */
const { RUN, perMajorProjects } = require('tsx/cjs/api').require(
	'./harness/jest/projects.ts',
	__filename,
);

/** @type {import('jest').Config} */
module.exports = {
	...RUN,
	// Three workers, where the other suites keep two: its files wait on n8n's minute polls and
	// restarts (CPU 561 s in 453 s with two, CI of 2026-12-05), and the third fills that wait.
	maxWorkers: 3,
	reporters: ['default', ['<rootDir>/harness/jest/timing-reporter.cjs', { run: 'recovery' }]],
	projects: perMajorProjects('recovery'),
};
