/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** The end of a command's output or a log file, for error messages; and what a log gained since. */
import { open, readFile, stat } from 'node:fs/promises';

/** The last `count` lines of `text`, without trailing blank lines. */
export function lastLines(text: string, count: number): string {
	return text.trimEnd().split('\n').slice(-count).join('\n');
}

export async function logTail(logFile: string, lines = 40): Promise<string> {
	const text = lastLines(await readFile(logFile, 'utf8').catch(() => ''), lines);
	return text || '(empty)';
}

/** The size of `logFile` now (0 when it does not exist yet): where `logSince` starts reading. */
export async function logSize(logFile: string): Promise<number> {
	return (await stat(logFile).catch(() => undefined))?.size ?? 0;
}

/** What was written to `logFile` after its first `offset` bytes. */
export async function logSince(logFile: string, offset: number): Promise<string> {
	const file = await open(logFile, 'r').catch(() => undefined);
	if (!file) return '';
	try {
		const { size } = await file.stat();
		const buffer = Buffer.alloc(Math.max(0, size - offset));
		await file.read(buffer, 0, buffer.length, offset);
		return buffer.toString('utf8');
	} finally {
		await file.close();
	}
}
