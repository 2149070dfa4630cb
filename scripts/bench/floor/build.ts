/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * Compiles the floor fixtures (BenchFloor.node.ts for the action node, BenchFloorTrigger.node.ts and
 * BenchFloorTriggerWhenDone.node.ts for the trigger) into a folder of their own that n8n loads
 * through N8N_CUSTOM_EXTENSIONS, where their types are `CUSTOM.<name>`. The package's build never
 * sees them.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

import { PROJECT_DIR } from '../../../harness/project';
import { runChecked } from '../../../harness/commands';

export const FLOOR_NODE_TYPE = 'CUSTOM.benchFloor';
export const FLOOR_TRIGGER_TYPE = 'CUSTOM.benchFloorTrigger';
export const FLOOR_TRIGGER_WHEN_DONE_TYPE = 'CUSTOM.benchFloorTriggerWhenDone';

/** Returns the folder to give n8n as N8N_CUSTOM_EXTENSIONS. */
export async function buildFloorExtension(outDir: string): Promise<string> {
	await rm(outDir, { recursive: true, force: true });
	const tsc = require.resolve('typescript/bin/tsc');
	// Files named on the command line: tsc ignores tsconfig.json and emits only what this file needs.
	// The fixtures import each other by their .ts names (as tsx needs); the emitted files by .js.
	const sources = [
		'BenchFloor.node.ts',
		'BenchFloorTrigger.node.ts',
		'BenchFloorTriggerWhenDone.node.ts',
	].map((file) => join(__dirname, file));
	const args = [
		tsc,
		...sources,
		'--outDir',
		outDir,
		'--rootDir',
		PROJECT_DIR,
		'--module',
		'commonjs',
		'--target',
		'es2022',
		'--strict',
		'--skipLibCheck',
		'--types',
		'node',
		'--rewriteRelativeImportExtensions',
	];
	await runChecked('Compiling the floor fixture', process.execPath, args, { cwd: PROJECT_DIR });
	return outDir;
}
