/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import type { Config } from '@jest/reporters';

import { ensureN8nRuntime } from '../n8n-runtime/install';
import { runtimeVersions } from '../runtime-versions';

/**
 * Jest's globalSetup of the projects that run n8n (harness/jest/projects.ts), run once before any
 * file when the run holds one of their files: installs the run's n8n runtimes side by side. Cold,
 * each took 4 to 5 minutes beside the first test files; warm it finds them cached at once.
 */
export default async function installRuntimes(
	_globalConfig: unknown,
	projectConfig: Config.ProjectConfig,
): Promise<void> {
	const { variable } = projectConfig.testEnvironmentOptions;
	if (variable !== 'SVC_E2E_N8N' && variable !== 'SVC_QUEUE_N8N')
		throw new Error(
			`${projectConfig.displayName?.name ?? 'a project'} names no n8n runtime variable`,
		);
	await Promise.all(
		runtimeVersions(variable).map(async (version) => await ensureN8nRuntime(version)),
	);
}
