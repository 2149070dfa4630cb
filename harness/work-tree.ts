/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** A copy of the project as a commit of its work tree would hold it. */
import { copyFile, mkdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { runCommand } from './commands';

/**
 * Copies the files a commit of the work tree would hold (tracked, and untracked but not ignored)
 * to `dest`: what a checkout of that commit would contain. Returns how many files it copied, or
 * undefined when `projectDir` is not a git work tree.
 */
export async function copyWorkTree(projectDir: string, dest: string): Promise<number | undefined> {
	const listed = await runCommand(
		'git',
		['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
		{ cwd: projectDir },
	).catch(() => undefined);
	if (!listed || listed.code !== 0) return undefined;
	let copied = 0;
	for (const file of listed.stdout.split('\0').filter(Boolean)) {
		const from = join(projectDir, file);
		const info = await stat(from).catch(() => undefined);
		if (!info?.isFile()) continue; // deleted in the work tree, a submodule, or a dangling link
		const to = join(dest, file);
		await mkdir(dirname(to), { recursive: true });
		await copyFile(from, to);
		copied += 1;
	}
	return copied;
}
