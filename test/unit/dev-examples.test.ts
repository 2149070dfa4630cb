/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { PUBLISHED_ON_NEW_LEADS, tryFirstSteps } from '../../harness/dev-banner';
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

describe("npm run dev's Try first steps", () => {
	const steps = tryFirstSteps({
		createLead: 'CREATE_LEAD',
		createConsentingLead: 'CREATE_CONSENTING_LEAD',
		createHotLead: 'CREATE_HOT_LEAD',
		findAda: 'FIND_ADA',
		postForm: 'POST_FORM',
		caCertPath: '/ca.pem',
	});
	const examples = readdirSync(EXAMPLES_DIR)
		.filter((name) => name.endsWith('.json'))
		.map(
			(name) =>
				JSON.parse(readFileSync(join(EXAMPLES_DIR, name), 'utf8')) as {
					name: string;
					nodes: Array<{ type: string; parameters: { events?: string[] } }>;
				},
		);
	const reactsToNewLeads = (name: string): boolean =>
		examples
			.find((example) => example.name === name)
			?.nodes.some(
				(node) =>
					/^n8n-nodes-svc\.svc(Pull)?Trigger$/.test(node.type) &&
					(node.parameters.events ?? []).includes('lead.created'),
			) ?? false;

	it('names, where it says that published examples stay published, every example a step publishes that reacts to new leads', () => {
		const numbered = steps.split(/\n {2}(?=\d\. )/).slice(1);
		const publishedBySteps = numbered
			.filter((step) => /\bpublish/i.test(step))
			.flatMap((step) => [...step.matchAll(/"(Svc: [^"]+)"/g)].map((match) => match[1]))
			.filter(reactsToNewLeads);
		expect(new Set(publishedBySteps)).toEqual(new Set(Object.values(PUBLISHED_ON_NEW_LEADS)));
		const afterwards = steps.slice(steps.indexOf('A published example stays published'));
		for (const name of publishedBySteps) expect(afterwards).toContain(`"${name}"`);
		// How to stop one, and the way back to a clean start.
		expect(afterwards).toMatch(/choose Unpublish in its ⋯ menu/);
		expect(afterwards).toMatch(/Ctrl-C and run npm run dev again/);
	});

	it('prints the commands it is given where a person pastes them', () => {
		for (const command of [
			'CREATE_LEAD',
			'CREATE_CONSENTING_LEAD',
			'CREATE_HOT_LEAD',
			'FIND_ADA',
			'POST_FORM',
		])
			expect(steps).toMatch(new RegExp(`\\n {7}${command}\\n`));
		expect(steps).toContain('NODE_EXTRA_CA_CERTS=/ca.pem');
	});
});
