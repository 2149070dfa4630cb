/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { readdirSync } from 'node:fs';

import { devExamples } from '../../harness/dev-examples';
import { EXAMPLES_DIR } from '../../harness/project';

describe('examples npm run dev imports', () => {
	const all = readdirSync(EXAMPLES_DIR)
		.filter((name) => name.endsWith('.json'))
		.sort();

	it('imports every example in queue mode', () => {
		expect(devExamples(true)).toEqual(all);
	});

	it('leaves out the exactly-once example without queue mode: its Postgres node has no credential there', () => {
		const plain = devExamples(false);
		expect(plain).not.toContain('exactly-once-with-postgres.json');
		expect(plain).toEqual(all.filter((name) => name !== 'exactly-once-with-postgres.json'));
		expect(plain).toContain('react-to-lead-created.json');
	});
});
