/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

import { until } from './wait';

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

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/**
 * Waits until either the cache entry `dir` is complete (`done` says so) or this process holds the
 * lock to install it: a folder made beside it, naming its owner. So jest's workers that need the
 * same runtime at once install it once, the others waiting for it, instead of each compiling
 * it on 2 cores. A lock whose owner died is taken over. Returns the release, or undefined when
 * another process finished the install.
 */
export async function lockInstall(
	dir: string,
	done: () => Promise<boolean>,
	timeoutMs: number,
): Promise<(() => Promise<void>) | undefined> {
	const lock = `${dir}.lock`;
	const owner = join(lock, 'pid');
	let held = false;
	await until(
		`the install into ${dir} by another process`,
		async () => {
			if (await done()) return true;
			try {
				await mkdir(lock);
				await writeFile(owner, String(process.pid));
				held = true;
				return true;
			} catch {
				const pid = Number(await readFile(owner, 'utf8').catch(() => 'NaN'));
				// No owner yet: it is writing its pid. A dead owner's lock is stale.
				if (Number.isInteger(pid) && !alive(pid)) await rm(lock, { recursive: true, force: true });
				return false;
			}
		},
		{ timeoutMs, everyMs: 1_000 },
	);
	return held ? async () => await rm(lock, { recursive: true, force: true }) : undefined;
}
