/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * Jest's global set-up and teardown of the end-to-end projects (harness/jest/projects.ts): the
 * runtimes installed, then the n8n per major (SVC_E2E_N8N) that the files share
 * (harness/n8n/shared.ts) started without waiting for it, and stopped at the run's end.
 */
import type { Config } from '@jest/reporters';

import { startEnvironmentN8n } from '../environment';
import type { N8nInstance } from '../n8n/instance';
import { announceSharedN8n, removeAnnouncement } from '../n8n/shared';
import { ensureN8nRuntime } from '../n8n-runtime/install';
import type { RuntimeVersion } from '../n8n-runtime/install';
import { packageSource } from '../package-source';
import { runtimeVersions } from '../runtime-versions';
import installRuntimes from './install-runtimes';

interface Started {
	n8n: Promise<N8nInstance | undefined>;
	folder: string;
	dispose(): Promise<void>;
}

/** Set-up and teardown are loaded apart: what one started, the other finds here. */
const registry = globalThis as typeof globalThis & { svcSharedN8n?: Map<RuntimeVersion, Started> };
const started = (registry.svcSharedN8n ??= new Map<RuntimeVersion, Started>());

/**
 * Jest runs a global set-up module once for all the projects that name it, with the first one's
 * config (a run of both majors calls this once): it starts the shared n8n of every major.
 */
export async function setUp(
	globalConfig: unknown,
	projectConfig: Config.ProjectConfig,
): Promise<void> {
	await installRuntimes(globalConfig, projectConfig);
	for (const version of runtimeVersions('SVC_E2E_N8N')) {
		if (started.has(version)) continue;
		const source = await packageSource();
		const { started: n8n, folder } = await announceSharedN8n(
			version,
			async () => await startEnvironmentN8n(await ensureN8nRuntime(version), source),
		);
		started.set(version, { n8n, folder, dispose: async () => await source.dispose() });
	}
}

export async function tearDown(): Promise<void> {
	for (const [version, run] of [...started]) {
		started.delete(version);
		await (await run.n8n)?.stop();
		await run.dispose();
		await removeAnnouncement(run.folder);
	}
}
