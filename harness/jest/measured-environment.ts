/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import { TestEnvironment } from 'jest-environment-node';

import { PROJECT_DIR } from '../project';
import { recordTiming } from '../timings';

/** Linux's clock ticks per second (`getconf CLK_TCK`), the unit of /proc's CPU times. */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds this jest worker spent so far, its own and those of the child processes it has
 * waited for (every n8n a file starts and stops): /proc/self/stat's utime, stime, cutime, cstime.
 * Undefined where there is no /proc.
 */
function cpuMs(): number | undefined {
	try {
		const stat = readFileSync('/proc/self/stat', 'utf8');
		// The fields after the command's closing parenthesis, from the state (field 3) on.
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
		return (ticks / TICKS_PER_SECOND) * 1000;
	} catch {
		return undefined;
	}
}

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
		this.startCpuMs = cpuMs();
	}

	async teardown(): Promise<void> {
		const endCpuMs = cpuMs();
		if (this.startCpuMs !== undefined && endCpuMs !== undefined)
			await recordTiming({ kind: 'file cpu', label: this.label, ms: endCpuMs - this.startCpuMs });
		await super.teardown();
	}
}
