/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * `npm run n8n:install`: installs the pinned n8n runtimes the tests and tools use (see
 * harness/n8n-runtime/README.md).
 *
 *   tsx scripts/n8n-install.ts [v2|v1|all] [--force]
 */
import { join } from 'node:path';
import { ensureN8nRuntime, type RuntimeVersion } from '../harness/n8n-runtime/install';
import { PROJECT_DIR } from '../harness/project';

async function main(argv: string[]): Promise<void> {
	const force = argv.includes('--force');
	const which = argv.find((arg) => !arg.startsWith('--')) ?? 'v2';
	const versions: RuntimeVersion[] =
		which === 'all' ? ['v2', 'v1'] : which === 'v1' || which === 'v2' ? [which] : [];
	if (versions.length === 0) throw new Error(`Unknown runtime "${which}": use v2, v1 or all`);
	for (const version of versions) {
		const runtime = await ensureN8nRuntime(version, { force });
		console.log(
			`  node: ${runtime.nodeBin}\n  n8n:  ${runtime.n8nBin}\n  link: ${join(PROJECT_DIR, '.n8n-runtime', version)}`,
		);
	}
}

main(process.argv.slice(2)).catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exitCode = 1;
});
