/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import { TestEnvironment } from 'jest-environment-node';

/**
 * Jest's node environment for one n8n major (the project's `testEnvironmentOptions.n8nMajor`):
 * the end-to-end files in it run on that major alone, so jest runs a file's two majors in two
 * workers side by side instead of one after the other.
 */
export default class N8nMajorEnvironment extends TestEnvironment {
	constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
		super(config, context);
		const major = config.projectConfig.testEnvironmentOptions.n8nMajor;
		if (typeof major !== 'string')
			throw new Error(`${context.testPath}: this jest project names no n8n major (n8nMajor)`);
		this.global.process.env.SVC_E2E_N8N = major;
	}
}
