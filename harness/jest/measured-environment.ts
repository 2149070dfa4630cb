/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { relative } from 'node:path';

import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import { TestEnvironment } from 'jest-environment-node';

import { processCpuMs } from '../cpu-time';
import { PROJECT_DIR } from '../project';
import { recordTiming } from '../timings';

/**
 * Jest's node environment for every project. It records the CPU time of each test file, n8n's
 * processes included, for the timing report: on 2 cores the suites are bound by CPU, so this says
 * what a file costs. In the project of one n8n major (harness/jest/projects.ts) the files run on
 * that major alone, through the suite's variable (SVC_E2E_N8N or SVC_QUEUE_N8N).
 */
export default class MeasuredEnvironment extends TestEnvironment {
	private readonly label: string;
	private startCpuMs: number | undefined;

	constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
		super(config, context);
		const project = config.projectConfig.displayName?.name ?? '';
		this.label = `${relative(PROJECT_DIR, context.testPath)} (${project})`;
		const { n8nMajor, variable } = config.projectConfig.testEnvironmentOptions;
		if (n8nMajor === undefined) return;
		if (typeof n8nMajor !== 'string' || typeof variable !== 'string')
			throw new Error(`${context.testPath}: this jest project names no n8n major`);
		this.global.process.env[variable] = n8nMajor;
	}

	async setup(): Promise<void> {
		await super.setup();
		// This worker's and that of the processes it has started and waited for (each n8n it stops).
		this.startCpuMs = processCpuMs('self');
	}

	async teardown(): Promise<void> {
		const endCpuMs = processCpuMs('self');
		if (this.startCpuMs !== undefined && endCpuMs !== undefined)
			await recordTiming({ kind: 'file cpu', label: this.label, ms: endCpuMs - this.startCpuMs });
		await super.teardown();
	}
}
