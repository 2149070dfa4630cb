/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** What the figures were measured on, for the report's header. */
import { readFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';

import type { N8nRuntime } from '../../harness/n8n-runtime/install';
import { runCommand } from '../../harness/commands';

export interface Machine {
	cpuModel: string;
	cores: number;
	ramGiB: number;
	kernel: string;
	node: string;
	n8n: string;
	date: string;
}

export async function describeMachine(runtime: N8nRuntime): Promise<Machine> {
	const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
	const model =
		/^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpus()[0]?.model ?? 'unknown';
	const { stdout } = await runCommand(runtime.nodeBin, ['--version']);
	return {
		cpuModel: model,
		cores: cpus().length,
		ramGiB: totalmem() / 1024 ** 3,
		kernel: `Linux ${release()}`,
		node: stdout.trim(),
		n8n: runtime.n8nVersion,
		date: new Date().toISOString(),
	};
}
