/* eslint-disable @n8n/community-nodes/no-restricted-globals -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * Environment for a child: this process's, without the variables `drop` matches, plus `extra`.
 * By default it drops what `npm run` exports about the outer project (npm_config_*, INIT_CWD),
 * which an inner npm would take as its own configuration, and NODE_OPTIONS (a runner's loaders).
 */
export function childEnv(
	extra: Record<string, string> = {},
	drop = /^(npm_|INIT_CWD$|NODE_OPTIONS$)/i,
): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!drop.test(key)) env[key] = value;
	}
	return { ...env, ...extra };
}
