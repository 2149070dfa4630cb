/* eslint-disable @n8n/community-nodes/no-restricted-imports, no-console -- tooling that runs in Node.js beside n8n, never inside it */
import type { Config } from '@jest/reporters';

import type { RuntimeVersion } from '../n8n-runtime/install';
import { ensureN8nRuntime, isN8nRuntimeInstalled } from '../n8n-runtime/install';
import { runtimeVersions } from '../runtime-versions';

const installing = new Set<RuntimeVersion>();

/**
 * Jest's globalSetup of the projects that run n8n (harness/jest/projects.ts), run once before any
 * file when the run holds one of their files: starts installing the run's missing n8n runtimes,
 * side by side, and returns without waiting. Jest's workers meanwhile run the files that need no
 * n8n (harness/jest/sequencer.ts puts them first), and a file that needs a runtime waits for its
 * install under the install lock. Cold, the two installs take about 5 minutes.
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
	for (const version of runtimeVersions(variable)) {
		// Each project that runs n8n calls this, in the one jest process: one install per runtime.
		if (installing.has(version) || (await isN8nRuntimeInstalled(version))) continue;
		installing.add(version);
		console.log(`Installing the n8n ${version} runtime while the tests that need no n8n run.`);
		// A failed install is tried again, and reported, by the first file that needs the runtime.
		void ensureN8nRuntime(version, { verbose: false }).then(
			(runtime) => console.log(`n8n ${version} runtime ${runtime.n8nVersion} installed.`),
			(error: Error) =>
				console.log(`Installing the n8n ${version} runtime failed: ${error.message}`),
		);
	}
}
