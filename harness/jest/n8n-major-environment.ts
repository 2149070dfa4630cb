/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import { TestEnvironment } from 'jest-environment-node';

/**
 * Jest's node environment for one n8n major (harness/jest/projects.ts): the files in it run on
 * that major alone, through the suite's variable (SVC_E2E_N8N or SVC_QUEUE_N8N).
 */
export default class N8nMajorEnvironment extends TestEnvironment {
	constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
		super(config, context);
		const { n8nMajor, variable } = config.projectConfig.testEnvironmentOptions;
		if (typeof n8nMajor !== 'string' || typeof variable !== 'string')
			throw new Error(`${context.testPath}: this jest project names no n8n major`);
		this.global.process.env[variable] = n8nMajor;
	}
}
