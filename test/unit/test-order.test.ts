/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Test } from '@jest/test-result';

import { PROJECT_DIR } from '../../harness/project';
import MarkedFirstSequencer, { startsFirst } from '../../harness/jest/test-order';

/**
 * A test as jest hands it to the sequencer on a fresh clone: no timings cached, sizes from disk;
 * `n8nMajor` as the projects that run n8n set it (harness/jest/projects.ts).
 */
function freshCloneTest(file: string, n8nMajor?: string): Test {
	const path = join(PROJECT_DIR, file);
	return {
		path,
		context: {
			config: { cache: false, testEnvironmentOptions: n8nMajor ? { n8nMajor } : {} },
			hasteFS: { getSize: (at: string) => statSync(at).size },
		},
	} as unknown as Test;
}

describe('the order jest runs files in', () => {
	it('only the opening comment of a file marks it to start first', () => {
		expect(startsFirst(join(PROJECT_DIR, 'test/e2e/pull-trigger-republish.test.ts'))).toBe(true);
		// This file names @startsFirst, but not in its opening comment.
		expect(startsFirst(__filename)).toBe(false);
		expect(startsFirst(join(PROJECT_DIR, 'test/e2e/n8n.test.ts'))).toBe(false);
	});

	it('with no timings, the marked files go first, the rest largest first', async () => {
		const files = [
			'test/unit/signature.test.ts',
			'test/e2e/pull-trigger-republish.test.ts',
			'test/e2e/n8n.test.ts',
			'test/e2e/pull-trigger.test.ts',
		];
		const sizes = files.map((file) => statSync(join(PROJECT_DIR, file)).size);
		// What the rule is for: jest alone would start the marked file last, being the smallest.
		expect(Math.min(...sizes)).toBe(sizes[1]);
		expect(sizes[2]).toBeGreaterThan(sizes[0]);

		const sequencer = new MarkedFirstSequencer({ contexts: [], globalConfig: {} } as never);
		const ordered = await sequencer.sort(files.map((file) => freshCloneTest(file)));
		expect(ordered.map((test) => test.path.slice(PROJECT_DIR.length + 1))).toEqual([
			'test/e2e/pull-trigger.test.ts',
			'test/e2e/pull-trigger-republish.test.ts',
			'test/e2e/n8n.test.ts',
			'test/unit/signature.test.ts',
		]);
	});

	it("while a run's n8n runtime is not installed, the files that need none go first, each group marked first", async () => {
		const files: Array<[string, string?]> = [
			['test/unit/signature.test.ts'],
			['test/e2e/pull-trigger-republish.test.ts', 'v2'],
			['test/e2e/n8n.test.ts', 'v2'],
			['test/unit/test-order.test.ts'],
		];
		const sequencer = new MarkedFirstSequencer({ contexts: [], globalConfig: {} } as never);
		const order = async (): Promise<string[]> =>
			(await sequencer.sort(files.map(([file, major]) => freshCloneTest(file, major)))).map(
				(test) => test.path.slice(PROJECT_DIR.length + 1),
			);
		const emptyCache = await mkdtemp(join(tmpdir(), 'svc-no-runtimes-'));
		const cacheHome = process.env.XDG_CACHE_HOME;
		process.env.XDG_CACHE_HOME = emptyCache;
		try {
			const cold = await order();
			expect(cold.slice(0, 2).sort()).toEqual([
				'test/unit/signature.test.ts',
				'test/unit/test-order.test.ts',
			]);
			expect(cold.slice(2)).toEqual([
				'test/e2e/pull-trigger-republish.test.ts',
				'test/e2e/n8n.test.ts',
			]);
		} finally {
			if (cacheHome === undefined) delete process.env.XDG_CACHE_HOME;
			else process.env.XDG_CACHE_HOME = cacheHome;
			await rm(emptyCache, { recursive: true, force: true });
		}
	});
});
