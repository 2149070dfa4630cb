/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error, no-console -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * n8n's community-package scanner, `@n8n/scan-community-package`, pinned and installed in the
 * cache outside the clone, and run on a plain `node` (no tsx hooks) over the legs
 * `scripts/scan-package.ts` asks for. See that script for what the scanner checks.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { cacheRoot, promoteInstall, readInstallMarker } from './cached-install';
import { childEnv } from './child-env';
import { NPM, runCommand } from './commands';
import { lastLines } from './log-tail';

export const SCANNER_PACKAGE = '@n8n/scan-community-package';
export const SCANNER_VERSION = '0.32.0';
/**
 * Bump when the install steps change, so old cache entries are not reused.
 * Scripts off: eslint-plugin-n8n-nodes-base@1.x has `preinstall: npx only-allow pnpm`, which fails
 * every npm install (and needs a download); the other install scripts in the tree belong to native
 * addons of n8n-workflow's dependencies (isolated-vm, ssh2, cpu-features), which linting never loads.
 */
const INSTALL_RECIPE = 'recipe-1: npm install --ignore-scripts; smoke scan';
const MARKER = '.scan-installed.json';
/** The tarball leg's patterns: a literal inside `analyzePackageByName`, which does not export it. */
export const TARBALL_PATTERNS = ['**/*.js', 'package.json'];
/** Calls in `analyzePackageByName` this script reproduces; checked against the installed source. */
const EXPECTED_CALLS = [
	'analyzePackage(sourceDir, SOURCE_FILE_PATTERNS)',
	"analyzePackage(packageDir, ['**/*.js', 'package.json'])",
	"'-xzf', tarballName, '-C', packageDir, '--strip-components=1'",
];
/** Packages whose resolved versions are shown (they decide what the scan finds). */
const REPORTED_DEPS = [
	'eslint',
	'@n8n/eslint-plugin-community-nodes',
	'eslint-plugin-n8n-nodes-base',
	'@typescript-eslint/parser',
];

export interface Marker {
	scanner: string;
	recipe: string;
	versions: Record<string, string>;
	installedAt: string;
	installSeconds: number;
}

export interface LegRequest {
	id: string;
	dir: string;
	/** Look for the folder whose package.json is named `packageName` first (the scanner's `findPackageRoot`). */
	findRootOf?: string;
	/** `null`: the scanner's `SOURCE_FILE_PATTERNS`. */
	patterns: string[] | null;
}

export interface LegResult {
	id: string;
	root: string | null;
	patterns: string[];
	passed: boolean;
	message?: string;
	details?: string;
}

export class ScanError extends Error {}

/** ESM run by a plain `node` (no tsx hooks): imports the installed scanner and runs the requested legs. */
const DRIVER = `
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [scannerPath, requestPath, resultPath] = process.argv.slice(2);
const request = JSON.parse(readFileSync(requestPath, 'utf8'));
const scanner = await import(pathToFileURL(scannerPath).href);
const results = [];
for (const leg of request.legs) {
	const patterns = leg.patterns ?? scanner.SOURCE_FILE_PATTERNS;
	const root = leg.findRootOf ? scanner.findPackageRoot(leg.dir, leg.findRootOf) : leg.dir;
	if (!root) {
		results.push({ id: leg.id, root: null, patterns, passed: false,
			message: 'no package.json named ' + leg.findRootOf + ' under ' + leg.dir + ' (the scanner fails such a source checkout)' });
		continue;
	}
	const result = await scanner.analyzePackage(root, patterns);
	results.push({ id: leg.id, root, patterns, passed: result.passed, message: result.message, details: result.details });
}
writeFileSync(resultPath, JSON.stringify(results));
`;

/** The time since `started` (a Date.now() reading), as "1.2 s". */
export function secondsSince(started: number): string {
	return `${((Date.now() - started) / 1000).toFixed(1)} s`;
}

export function kb(bytes: number): string {
	return `${(bytes / 1024).toFixed(1)} KB`;
}

/** The package.json of `name` as Node would resolve it from `fromDir` (walking up node_modules folders). */
function findPackageJson(fromDir: string, name: string): string | undefined {
	for (let dir = fromDir; ; dir = dirname(dir)) {
		const candidate = join(dir, 'node_modules', ...name.split('/'), 'package.json');
		if (existsSync(candidate)) return candidate;
		if (dirname(dir) === dir) return undefined;
	}
}

async function versionOf(packageJson: string | undefined): Promise<string> {
	if (!packageJson) return 'missing';
	return (JSON.parse(await readFile(packageJson, 'utf8')) as { version: string }).version;
}

function scannerDir(installDir: string): string {
	return join(installDir, 'node_modules', ...SCANNER_PACKAGE.split('/'));
}

async function resolvedVersions(installDir: string): Promise<Record<string, string>> {
	const scanner = scannerDir(installDir);
	const versions: Record<string, string> = {
		[SCANNER_PACKAGE]: await versionOf(join(scanner, 'package.json')),
	};
	for (const dep of REPORTED_DEPS) versions[dep] = await versionOf(findPackageJson(scanner, dep));
	// The TypeScript that @typescript-eslint parses .ts with (the scanner's own typescript@7 has no JS API).
	const estree = findPackageJson(
		dirname(findPackageJson(scanner, '@typescript-eslint/parser') ?? scanner),
		'@typescript-eslint/typescript-estree',
	);
	versions['typescript (for the parser)'] = await versionOf(
		estree ? findPackageJson(dirname(estree), 'typescript') : undefined,
	);
	return versions;
}

async function readMarker(dir: string): Promise<Marker | undefined> {
	const marker = await readInstallMarker<Marker>(dir, MARKER);
	return marker?.recipe === INSTALL_RECIPE && marker.scanner === SCANNER_VERSION
		? marker
		: undefined;
}

/** Runs the scanner's functions in a plain node child; its own console output goes straight to ours. */
export async function runLegs(
	installDir: string,
	workDir: string,
	legs: LegRequest[],
): Promise<LegResult[]> {
	const scannerPath = join(scannerDir(installDir), 'scanner', 'scanner.mjs');
	const id = `${process.pid}-${Date.now()}`;
	const driverPath = join(workDir, `driver-${id}.mjs`);
	const requestPath = join(workDir, `request-${id}.json`);
	const resultPath = join(workDir, `result-${id}.json`);
	// scanner.mjs makes a temp folder when it is imported and never removes it: keep it in ours.
	const scannerTmp = join(workDir, `scanner-tmp-${id}`);
	await mkdir(scannerTmp, { recursive: true });
	await writeFile(driverPath, DRIVER);
	await writeFile(requestPath, JSON.stringify({ legs }));
	const result = await runCommand(
		process.execPath,
		[driverPath, scannerPath, requestPath, resultPath],
		{
			cwd: workDir,
			env: childEnv({ TMPDIR: scannerTmp }),
			inherit: true,
		},
	);
	if (result.code !== 0 || !existsSync(resultPath)) {
		throw new ScanError(
			`the scanner's analysis crashed (exit ${result.code}); its output is above`,
		);
	}
	return JSON.parse(await readFile(resultPath, 'utf8')) as LegResult[];
}

/** Proves an install works end to end: a .ts node with setTimeout must fail on no-restricted-globals. */
async function smokeScan(installDir: string, workDir: string): Promise<void> {
	const fixture = join(workDir, 'smoke');
	await mkdir(join(fixture, 'nodes', 'Smoke'), { recursive: true });
	await writeFile(
		join(fixture, 'package.json'),
		JSON.stringify({ name: 'n8n-nodes-smoke', version: '0.0.0' }),
	);
	await writeFile(
		join(fixture, 'nodes', 'Smoke', 'Smoke.node.ts'),
		'export const wait = (ms: number): unknown => setTimeout(() => undefined, ms);\n',
	);
	const [leg] = await runLegs(installDir, workDir, [{ id: 'smoke', dir: fixture, patterns: null }]);
	if (leg.passed || !leg.details?.includes('@n8n/community-nodes/no-restricted-globals')) {
		throw new ScanError(
			`smoke scan did not flag setTimeout in a .ts node (TypeScript parsing broken?): ${JSON.stringify(leg)}`,
		);
	}
}

/** The scanner installed in the cache (reused when complete), with the versions it resolved. */
export async function ensureScanner(
	reinstall: boolean,
	workDir: string,
): Promise<{ dir: string; marker: Marker; note: string }> {
	const started = Date.now();
	const root = cacheRoot();
	const dir = join(root, `scanner-${SCANNER_VERSION}`);
	const existing = reinstall ? undefined : await readMarker(dir);
	if (existing) return { dir, marker: existing, note: `cached (${dir})` };

	await mkdir(root, { recursive: true });
	// Same parent as the final folder, so the final rename is atomic.
	const tmp = await mkdtemp(join(root, `.tmp-scanner-${SCANNER_VERSION}-`));
	const logPath = join(tmp, 'install.log');
	const log = createWriteStream(logPath);
	const endLog = async (): Promise<void> =>
		await new Promise<void>((done) => log.end(() => done()));
	console.log(`scanner: installing ${SCANNER_PACKAGE}@${SCANNER_VERSION} into ${dir} ...`);
	let marker: Marker;
	try {
		await writeFile(
			join(tmp, 'package.json'),
			`${JSON.stringify(
				{
					name: 'n8n-nodes-svc-scanner',
					private: true,
					description: `${SCANNER_PACKAGE} for scripts/scan-package.ts in n8n-nodes-svc`,
					dependencies: { [SCANNER_PACKAGE]: SCANNER_VERSION },
				},
				null,
				'\t',
			)}\n`,
		);
		const install = await runCommand(
			NPM,
			[
				'install',
				'--ignore-scripts',
				'--no-audit',
				'--no-fund',
				'--loglevel=warn',
				'--prefix',
				tmp,
			],
			{
				cwd: tmp,
				env: childEnv(),
				log,
			},
		);
		if (install.code !== 0)
			throw new ScanError(
				`npm install failed (exit ${install.code}):\n${lastLines(install.output, 30)}`,
			);
		await smokeScan(tmp, workDir);
		marker = {
			scanner: SCANNER_VERSION,
			recipe: INSTALL_RECIPE,
			versions: await resolvedVersions(tmp),
			installedAt: new Date().toISOString(),
			installSeconds: Math.round((Date.now() - started) / 1000),
		};
		await endLog();
		const promoted = await promoteInstall(
			tmp,
			dir,
			{ file: MARKER, value: marker, read: readMarker },
			reinstall,
		);
		if (!promoted.ours)
			return { dir, marker: promoted.marker, note: `installed by another run (${dir})` };
	} catch (error) {
		await endLog();
		const kept = join(root, `scanner-${SCANNER_VERSION}.failed.log`);
		await copyFile(logPath, kept).catch(() => undefined);
		await rm(tmp, { recursive: true, force: true });
		const message = error instanceof Error ? error.message : String(error);
		throw new ScanError(`installing the scanner failed: ${message}\nFull log: ${kept}`);
	}
	return { dir, marker, note: `installed in ${secondsSince(started)} (${dir})` };
}

/** Fails loudly if the installed scanner no longer does what this script mirrors. */
export async function checkScannerSource(installDir: string): Promise<void> {
	const source = await readFile(join(scannerDir(installDir), 'scanner', 'scanner.mjs'), 'utf8');
	const missing = EXPECTED_CALLS.filter((call) => !source.includes(call));
	if (missing.length > 0) {
		throw new ScanError(
			`scanner.mjs of ${SCANNER_PACKAGE}@${SCANNER_VERSION} no longer contains ${missing.join(' / ')}: review scripts/scan-package.ts`,
		);
	}
}
