/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

	it('has no file outside test/ over 400 lines', () => {
		const long = Object.keys(MAY_IMPORT)
			.filter((folder) => folder !== 'test')
			.flatMap((folder) => typeScriptFiles(join(PROJECT_DIR, folder)))
			.map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
			.filter(({ lines }) => lines > 400)
			.map(({ file, lines }) => `${relative(PROJECT_DIR, file)}: ${lines} lines`);
		expect(long).toEqual([]);
	});

	it('finds the imports it checks (the scan itself works)', () => {
		const queueSuite = readFileSync(
			join(PROJECT_DIR, 'test', 'queue', 'queue-mode.test.ts'),
			'utf8',
		);
		expect(relativeImports(queueSuite)).toContain('../../harness/n8n/queue');
	});
});

/**
 * Inside nodes/Svc/, the parts and the ones each may import besides itself (docs/development.md,
 * "Layout"): the floors node → actions/trigger/methods → transport/shared → contract, and inside
 * trigger/ the webhook path and the pull path, which never import each other, over the
 * exactly-once core and the event list they share. The longest matching prefix names a file's part.
 */
const PRODUCT_PARTS: Record<string, string[]> = {
	'': [
		'actions/',
		'trigger/webhook/',
		'trigger/pull/',
		'methods/',
		'transport/',
		'shared/',
		'contract/',
	],
	'actions/': ['transport/', 'shared/', 'contract/'],
	'methods/': ['transport/', 'shared/', 'contract/'],
	'trigger/webhook/': [
		'trigger/exactlyOnce/',
		'trigger/eventList.ts',
		'transport/',
		'shared/',
		'contract/',
	],
	'trigger/pull/': [
		'trigger/exactlyOnce/',
		'trigger/eventList.ts',
		'transport/',
		'shared/',
		'contract/',
	],
	'trigger/eventList.ts': ['transport/', 'shared/', 'contract/'],
	'trigger/exactlyOnce/': ['shared/', 'contract/'],
	'transport/': ['contract/'],
	'shared/': ['contract/'],
	'contract/': [],
};

describe('the layout inside nodes/Svc/', () => {
	const productDir = join(PROJECT_DIR, 'nodes', 'Svc');
	const partOf = (path: string): string => {
		const inside = relative(productDir, path).split(sep).join('/');
		const parts = Object.keys(PRODUCT_PARTS).filter(
			(part) => part !== '' && (inside === part || inside.startsWith(part)),
		);
		return parts.sort((a, b) => b.length - a.length)[0] ?? '';
	};
	const files = typeScriptFiles(productDir);

	it('has no import that runs up a floor, or between the webhook and the pull paths', () => {
		const wrong = files.flatMap((file) =>
			relativeImports(readFileSync(file, 'utf8'))
				.map((specifier) => ({ specifier, target: resolve(dirname(file), specifier) }))
				.filter(({ target }) => !relative(productDir, target).startsWith('..'))
				.filter(({ target }) => {
					const module = existsSync(`${target}.ts`) ? `${target}.ts` : join(target, 'index.ts');
					const [from, to] = [partOf(file), partOf(module)];
					return from !== to && !PRODUCT_PARTS[from].includes(to);
				})
				.map(({ specifier }) => `${relative(PROJECT_DIR, file)} imports ${specifier}`),
		);
		expect(wrong).toEqual([]);
	});

	it('places every product file in a part, each part holding at least one file (the table is current)', () => {
		const used = new Set(files.map(partOf));
		expect(Object.keys(PRODUCT_PARTS).filter((part) => !used.has(part))).toEqual([]);
	});
});

/**
 * `n8n-node lint` (n8n's reviewers' check, strict mode) runs n8n's node rules on every .ts file in
 * the repository. The package (nodes/, credentials/) takes them without exception; tooling may
 * switch off only rules about running inside n8n, at its top, with a reason. Our own type-aware
 * lint ignores these comments (`--no-inline-config`). docs/n8n-toolchain.md.
 */
describe('lint exceptions', () => {
	const DIRECTIVE = /\/[*/]\s*eslint(?:-disable|-enable|\s|:)[^\n]*/g;
	const ALLOWED_RULE = /^(?:@n8n\/community-nodes\/[a-z-]+|no-console|import-x\/no-unresolved)$/;
	const directives = (file: string) => readFileSync(file, 'utf8').match(DIRECTIVE) ?? [];

	it('nodes/ and credentials/ carry no eslint directive', () => {
		const found = ['nodes', 'credentials'].flatMap((folder) =>
			typeScriptFiles(join(PROJECT_DIR, folder)).flatMap((file) =>
				directives(file).map((text) => `${relative(PROJECT_DIR, file)}: ${text}`),
			),
		);
		expect(found).toEqual([]);
	});

	it('tooling switches off only rules about running inside n8n, in a header, each with a reason', () => {
		const wrong: string[] = [];
		let seen = 0;
		for (const folder of ['harness', 'scripts', 'sandbox', 'test']) {
			for (const file of typeScriptFiles(join(PROJECT_DIR, folder))) {
				const source = readFileSync(file, 'utf8');
				const header = source.slice(0, source.search(/^(?!\/\*\s*eslint-disable )/m));
				for (const text of directives(file)) {
					seen += 1;
					const parsed = /^\/\* eslint-disable ([^*]+?) -- (\S[^*]*) \*\/$/.exec(text);
					const rules = parsed?.[1].split(/,\s*/) ?? [];
					if (!parsed || !header.includes(text) || !rules.every((rule) => ALLOWED_RULE.test(rule)))
						wrong.push(`${relative(PROJECT_DIR, file)}: ${text}`);
				}
			}
		}
		expect(wrong).toEqual([]);
		expect(seen).toBeGreaterThan(0);
	});
});
