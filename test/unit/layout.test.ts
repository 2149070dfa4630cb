import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

import { PROJECT_DIR } from '../../harness/project';

/** Top-level folders, and the ones each may import from besides itself (docs/development.md, "Layout"). */
const MAY_IMPORT: Record<string, string[]> = {
	nodes: ['credentials'],
	credentials: ['nodes'],
	sandbox: ['nodes'],
	harness: ['nodes', 'credentials', 'sandbox'],
	scripts: ['nodes', 'credentials', 'sandbox', 'harness'],
	test: ['nodes', 'credentials', 'sandbox', 'harness'],
};

function typeScriptFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : typeScriptFiles(path);
		return entry.name.endsWith('.ts') ? [path] : [];
	});
}

/** Relative module specifiers a file imports, re-exports, requires or loads dynamically. */
function relativeImports(source: string): string[] {
	const found = source.matchAll(
		/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm,
	);
	return [...found].map((match) => match[1]);
}

const topFolder = (path: string) => relative(PROJECT_DIR, path).split(sep)[0];

describe('the project layout', () => {
	const crossings: string[] = [];
	for (const folder of Object.keys(MAY_IMPORT)) {
		for (const file of typeScriptFiles(join(PROJECT_DIR, folder))) {
			for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
				const target = topFolder(resolve(dirname(file), specifier));
				if (target !== folder && !MAY_IMPORT[folder].includes(target))
					crossings.push(`${relative(PROJECT_DIR, file)} imports ${specifier}`);
			}
		}
	}

	it('has no import across folders that the layout forbids (harness never imports scripts/ or test/; test/ and scripts/ never import each other)', () => {
		expect(crossings).toEqual([]);
	});

	it('scripts/ and harness/ import a *.node module by its .ts name: under tsx a bare `.node` import loads as a native addon', () => {
		const nodeModules = ['scripts', 'harness'].flatMap((folder) =>
			typeScriptFiles(join(PROJECT_DIR, folder)).flatMap((file) =>
				relativeImports(readFileSync(file, 'utf8'))
					.filter((specifier) => specifier.endsWith('.node'))
					.map((specifier) => `${relative(PROJECT_DIR, file)} imports ${specifier}`),
			),
		);
		expect(nodeModules).toEqual([]);
	});

	it('finds the imports it checks (the scan itself works)', () => {
		const queueSuite = readFileSync(
			join(PROJECT_DIR, 'test', 'queue', 'queue-mode.test.ts'),
			'utf8',
		);
		expect(relativeImports(queueSuite)).toContain('../../harness/n8n/queue');
	});
});
