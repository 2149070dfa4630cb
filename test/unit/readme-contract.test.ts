/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ENDPOINTS } from '../../nodes/Svc/contract';

const ROOT = join(__dirname, '..', '..');

/** The text of `## title` in a markdown file, up to the next `## ` heading. */
function section(file: string, title: string): string {
	const text = readFileSync(join(ROOT, file), 'utf8');
	const start = text.indexOf(`\n## ${title}\n`);
	if (start === -1) throw new Error(`${file} has no "## ${title}" section`);
	const end = text.indexOf('\n## ', start + 1);
	return text.slice(start, end === -1 ? undefined : end);
}

/** Table rows of a section (lines that start with `|`). */
function rows(text: string): string[] {
	return text.split('\n').filter((line) => line.startsWith('|'));
}

/** A table row's cells, trimmed: a formatter may pad them to align the columns. */
function cells(row: string): string[] {
	return row
		.split('|')
		.slice(1, -1)
		.map((cell) => cell.trim());
}

describe('the README and docs/contract.md follow the contract module', () => {
	const operations = rows(section('README.md', 'Operations'));
	const assumptions = rows(section('docs/contract.md', 'Documented and assumed'));

	it.each(Object.entries(ENDPOINTS))(
		'README lists %s with its method, path and scope',
		(_name, endpoint) => {
			const row = operations.find((line) =>
				line.includes(`\`${endpoint.method} ${endpoint.path}\``),
			);
			expect(row).toBeDefined();
			expect(row).toContain(endpoint.scope ?? 'any');
			if (endpoint.idempotency !== 'none') expect(row).toContain(endpoint.idempotency);
		},
	);

	it.each(Object.entries(ENDPOINTS))(
		'docs/contract.md labels the path of %s as the contract does',
		(_name, endpoint) => {
			const row = assumptions.find(
				(line) => line.includes(endpoint.path) && line.includes(endpoint.method),
			);
			expect(row).toBeDefined();
			expect(cells(row ?? '').at(-1)).toBe(endpoint.label);
		},
	);

	it('the README links to docs/contract.md', () => {
		expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('(docs/contract.md)');
	});
});
