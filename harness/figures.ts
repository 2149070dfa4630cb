/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** Figures a suite measured, kept under .tmp/ for the docs and the closing notes. */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { TMP_DIR } from './project';
import { until } from './wait';

/**
 * Writes `figures` into .tmp/`file`, keeping the keys another run (another major's) wrote there.
 * The majors run side by side, so each read and write holds a lock (a folder made or not, at once).
 */
export async function mergeFigures(file: string, figures: IDataObject): Promise<void> {
	await mkdir(TMP_DIR, { recursive: true });
	const path = join(TMP_DIR, file);
	const lock = `${path}.lock`;
	await until(`the lock on ${file}`, async () =>
		mkdir(lock).then(
			() => true,
			() => false,
		),
	);
	try {
		const earlier = JSON.parse(await readFile(path, 'utf8').catch(() => '{}')) as IDataObject;
		await writeFile(path, `${JSON.stringify({ ...earlier, ...figures }, null, 2)}\n`);
	} finally {
		await rm(lock, { recursive: true, force: true });
	}
}
