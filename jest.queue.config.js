/** `npm run test:queue`: the queue-mode suite, one project per n8n major, side by side. */
const { RUN, perMajorProjects } = require('tsx/cjs/api').require(
	'./harness/jest/projects.ts',
	__filename,
);

/** @type {import('jest').Config} */
module.exports = {
	...RUN,
	reporters: ['default', ['<rootDir>/harness/jest/timing-reporter.cjs', { run: 'queue' }]],
	projects: perMajorProjects('queue'),
};
