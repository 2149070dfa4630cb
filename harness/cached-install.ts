/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { existsSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** This project's cache of installed tools (n8n runtimes, the package scanner), outside every clone. */
export function cacheRoot(): string {
	const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
	return join(base, 'n8n-nodes-svc');
}

/** Reads the marker a complete install leaves in its folder; undefined when there is none. */
export async function readInstallMarker<M>(
	dir: string,
	markerFile: string,
): Promise<M | undefined> {
	try {
		return JSON.parse(await readFile(join(dir, markerFile), 'utf8')) as M;
	} catch {
		return undefined;
	}
}

/**
 * Turns a finished install in `tmp` (a sibling of `dir`, so the rename is atomic) into the cache
 * entry `dir`. The marker is written last: a folder with it is complete. When another process
 * finished the same install meanwhile, theirs may be in use, so it is kept and ours dropped;
 * `replace` (a forced reinstall) moves any old folder aside first. Returns the marker in force.
 */
export async function promoteInstall<M>(
	tmp: string,
	dir: string,
	marker: { file: string; value: M; read: (dir: string) => Promise<M | undefined> },
	replace: boolean,
): Promise<{ marker: M; ours: boolean }> {
	await writeFile(join(tmp, marker.file), `${JSON.stringify(marker.value, null, '\t')}\n`);
	const finishedMeanwhile = replace ? undefined : await marker.read(dir);
	if (finishedMeanwhile) {
		await rm(tmp, { recursive: true, force: true });
		return { marker: finishedMeanwhile, ours: false };
	}
	if (existsSync(dir)) {
		// A forced reinstall, or a leftover without marker: move it aside, then delete it.
		const old = `${dir}.old-${process.pid}`;
		await rename(dir, old);
		await rm(old, { recursive: true, force: true });
	}
	await rename(tmp, dir);
	return { marker: marker.value, ours: true };
}
