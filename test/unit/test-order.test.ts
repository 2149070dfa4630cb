/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { statSync } from 'node:fs';
import { join } from 'node:path';

import type { Test } from '@jest/test-result';

import { PROJECT_DIR } from '../../harness/project';
import MarkedFirstSequencer, { startsFirst } from '../../harness/jest/test-order';

/** A test as jest hands it to the sequencer on a fresh clone: no timings cached, sizes from disk. */
function freshCloneTest(file: string): Test {
	const path = join(PROJECT_DIR, file);
	return {
		path,
		context: {
			config: { cache: false },
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
		const ordered = await sequencer.sort(files.map(freshCloneTest));
		expect(ordered.map((test) => test.path.slice(PROJECT_DIR.length + 1))).toEqual([
			'test/e2e/pull-trigger.test.ts',
			'test/e2e/pull-trigger-republish.test.ts',
			'test/e2e/n8n.test.ts',
			'test/unit/signature.test.ts',
		]);
	});
});
