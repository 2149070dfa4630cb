/* eslint-disable @n8n/community-nodes/no-restricted-globals -- tooling that runs in Node.js beside n8n, never inside it */
import type { RuntimeVersion } from './n8n-runtime/install';

const RUNTIME_VERSIONS: readonly RuntimeVersion[] = ['v1', 'v2'];

/**
 * The n8n runtimes a suite runs on, from the environment variable `variable`: `all` (default: both),
 * `v1`, `v2`, or a comma list such as `v1,v2` (run one after the other, each with its own n8n and
 * sandbox). A wrong value names the variable it came from.
 */
export function runtimeVersions(
	variable: 'SVC_E2E_N8N' | 'SVC_QUEUE_N8N',
	env: NodeJS.ProcessEnv = process.env,
): RuntimeVersion[] {
	const value = env[variable];
	const wanted = (value ?? '').trim().toLowerCase();
	if (wanted === '' || wanted === 'all') return [...RUNTIME_VERSIONS];
	const versions = wanted.split(',').map((part) => part.trim());
	const unknown = versions.filter(
		(version) => !RUNTIME_VERSIONS.includes(version as RuntimeVersion),
	);
	if (unknown.length > 0)
		throw new Error(
			`${variable}=${value}: unknown n8n runtime ${unknown.join(', ')} (use v1, v2, all or a comma list)`,
		);
	return [...new Set(versions as RuntimeVersion[])];
}
