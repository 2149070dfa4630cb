/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** The end of a command's output or a log file, for error messages. */
import { readFile } from 'node:fs/promises';

/** The last `count` lines of `text`, without trailing blank lines. */
export function lastLines(text: string, count: number): string {
	return text.trimEnd().split('\n').slice(-count).join('\n');
}

export async function logTail(logFile: string, lines = 40): Promise<string> {
	const text = lastLines(await readFile(logFile, 'utf8').catch(() => ''), lines);
	return text || '(empty)';
}
