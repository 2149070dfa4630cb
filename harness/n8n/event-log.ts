/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * n8n's event log (`<user folder>/.n8n/n8nEventLog*.log`, one JSON message a line), which n8n
 * reads at start-up to rebuild the runs a dead process left unfinished.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const NODE_MESSAGES = new Set(['n8n.node.started', 'n8n.node.finished']);

/**
 * Removes every node message of `executionId` from the event log of a stopped n8n, leaving the
 * run's start: the log as a kill leaves it when it lands after the run started and before n8n's
 * thread wrote the line of its first node.
 */
export async function dropNodeMessages(userFolder: string, executionId: string): Promise<void> {
	const folder = join(userFolder, '.n8n');
	const logs = (await readdir(folder)).filter((name) => /^n8nEventLog.*\.log$/.test(name));
	for (const name of logs) {
		const lines = (await readFile(join(folder, name), 'utf8')).split('\n');
		const kept = lines.filter((line) => {
			let message: { eventName?: string; payload?: { executionId?: unknown } };
			try {
				message = JSON.parse(line) as typeof message;
			} catch {
				return true;
			}
			return !(
				NODE_MESSAGES.has(message.eventName ?? '') &&
				String(message.payload?.executionId) === executionId
			);
		});
		await writeFile(join(folder, name), kept.join('\n'));
	}
}
