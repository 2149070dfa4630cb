import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ENDPOINTS } from '../../nodes/Svc/contract';

const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

function section(title: string): string {
	const start = readme.indexOf(`## ${title}`);
	const end = readme.indexOf('\n## ', start + 1);
	return readme.slice(start, end === -1 ? undefined : end);
}

describe('README follows contract.ts', () => {
	const operations = section('Operations');
	const assumptions = section('What the connector assumes');

	it.each(Object.entries(ENDPOINTS))('lists %s with its method, path and scope', (_name, endpoint) => {
		const row = operations.split('\n').find((line) => line.includes(`\`${endpoint.method} ${endpoint.path}\``));
		expect(row).toBeDefined();
		expect(row).toContain(endpoint.scope ?? 'any');
		if (endpoint.idempotency !== 'none') expect(row).toContain(endpoint.idempotency);
	});

	it.each(Object.entries(ENDPOINTS))('labels the path of %s as the contract does', (_name, endpoint) => {
		const row = assumptions.split('\n').find((line) => line.includes(endpoint.path) && line.includes(endpoint.method));
		expect(row).toBeDefined();
		expect(row).toMatch(new RegExp(`\\| ${endpoint.label} \\|$`));
	});
});
