/**
 * Runs n8n's own community-package scanner, `@n8n/scan-community-package`, on this package as it
 * would be published: built, packed with `npm pack`, and read back from the tarball.
 *
 *   tsx scripts/scan-package.ts [--no-build] [--no-source] [--project DIR] [--tarball FILE.tgz]
 *                               [--reinstall] [--keep]
 *
 * What the scanner does for a published package (`analyzePackageByName` in scanner/scanner.mjs):
 *   1. provenance: the registry metadata of that version must carry an npm provenance attestation;
 *   2. source leg: it downloads the GitHub commit the attestation names, finds the folder whose
 *      package.json has the package's name (`findPackageRoot`) and lints `SOURCE_FILE_PATTERNS`
 *      (package.json and {nodes,credentials}/**) there with `analyzePackage`;
 *   3. tarball leg: `npm pack <name>@<version>`, `tar -xzf --strip-components=1`, and
 *      `analyzePackage(dir, ['**\/*.js', 'package.json'])`.
 * The package passes when both legs pass. `analyzePackage` is ESLint with the scanner's own config
 * (`buildScanConfig`: @n8n/eslint-plugin-community-nodes `recommended`, `no-console`, and
 * eslint-plugin-n8n-nodes-base's community/credentials/nodes rulesets), eslint-disable comments
 * ignored; only errors fail it.
 *
 * This script calls the scanner's own exported `findPackageRoot`, `SOURCE_FILE_PATTERNS` and
 * `analyzePackage` (in a plain `node` child, from a pinned install in a cache folder outside the
 * repo) on local stand-ins for what the registry and GitHub would serve:
 *   - source leg: the files git would commit from the work tree (tracked plus untracked, not
 *     ignored) copied to a temp folder, as the attested checkout would contain them;
 *   - tarball leg: our `npm pack` output, extracted exactly as the scanner extracts it.
 * Provenance cannot be checked before publishing; it is reported as not checked.
 *
 * Exit status: 0 scan passed, 1 the scanner found problems, 2 the scan could not run.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { copyFile, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';

import { promoteInstall, readInstallMarker } from '../harness/cached-install';
import { packTarball } from '../harness/pack';
import { childEnv, lastLines, runCommand } from '../harness/processes';

const SCANNER_PACKAGE = '@n8n/scan-community-package';
const SCANNER_VERSION = '0.32.0';
/**
 * Bump when the install steps change, so old cache entries are not reused.
 * Scripts off: eslint-plugin-n8n-nodes-base@1.x has `preinstall: npx only-allow pnpm`, which fails
 * every npm install (and needs a download); the other install scripts in the tree belong to native
 * addons of n8n-workflow's dependencies (isolated-vm, ssh2, cpu-features), which linting never loads.
 */
const INSTALL_RECIPE = 'recipe-1: npm install --ignore-scripts; smoke scan';
const MARKER = '.scan-installed.json';
const PROJECT_DIR = resolve(__dirname, '..');
/** The tarball leg's patterns: a literal inside `analyzePackageByName`, which does not export it. */
const TARBALL_PATTERNS = ['**/*.js', 'package.json'];
/** Calls in `analyzePackageByName` this script reproduces; checked against the installed source. */
const EXPECTED_CALLS = [
	'analyzePackage(sourceDir, SOURCE_FILE_PATTERNS)',
	"analyzePackage(packageDir, ['**/*.js', 'package.json'])",
	"'-xzf', tarballName, '-C', packageDir, '--strip-components=1'",
];
/** Packages whose resolved versions are shown (they decide what the scan finds). */
const REPORTED_DEPS = ['eslint', '@n8n/eslint-plugin-community-nodes', 'eslint-plugin-n8n-nodes-base', '@typescript-eslint/parser'];

interface Marker {
	scanner: string;
	recipe: string;
	versions: Record<string, string>;
	installedAt: string;
	installSeconds: number;
}

interface LegRequest {
	id: string;
	dir: string;
	/** Look for the folder whose package.json is named `packageName` first (the scanner's `findPackageRoot`). */
	findRootOf?: string;
	/** `null`: the scanner's `SOURCE_FILE_PATTERNS`. */
	patterns: string[] | null;
}

interface LegResult {
	id: string;
	root: string | null;
	patterns: string[];
	passed: boolean;
	message?: string;
	details?: string;
}

class ScanError extends Error {}

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

function cacheRoot(): string {
	const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
	return join(base, 'n8n-nodes-svc');
}

function seconds(since: number): string {
	return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

function kb(bytes: number): string {
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
	const versions: Record<string, string> = { [SCANNER_PACKAGE]: await versionOf(join(scanner, 'package.json')) };
	for (const dep of REPORTED_DEPS) versions[dep] = await versionOf(findPackageJson(scanner, dep));
	// The TypeScript that @typescript-eslint parses .ts with (the scanner's own typescript@7 has no JS API).
	const estree = findPackageJson(dirname(findPackageJson(scanner, '@typescript-eslint/parser') ?? scanner), '@typescript-eslint/typescript-estree');
	versions['typescript (for the parser)'] = await versionOf(estree ? findPackageJson(dirname(estree), 'typescript') : undefined);
	return versions;
}

async function readMarker(dir: string): Promise<Marker | undefined> {
	const marker = await readInstallMarker<Marker>(dir, MARKER);
	return marker?.recipe === INSTALL_RECIPE && marker.scanner === SCANNER_VERSION ? marker : undefined;
}

/** Runs the scanner's functions in a plain node child; its own console output goes straight to ours. */
async function runLegs(installDir: string, workDir: string, legs: LegRequest[]): Promise<LegResult[]> {
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
	const result = await runCommand(process.execPath, [driverPath, scannerPath, requestPath, resultPath], {
		cwd: workDir,
		env: childEnv({ TMPDIR: scannerTmp }),
		inherit: true,
	});
	if (result.code !== 0 || !existsSync(resultPath)) {
		throw new ScanError(`the scanner's analysis crashed (exit ${result.code}); its output is above`);
	}
	return JSON.parse(await readFile(resultPath, 'utf8')) as LegResult[];
}

/** Proves an install works end to end: a .ts node with setTimeout must fail on no-restricted-globals. */
async function smokeScan(installDir: string, workDir: string): Promise<void> {
	const fixture = join(workDir, 'smoke');
	await mkdir(join(fixture, 'nodes', 'Smoke'), { recursive: true });
	await writeFile(join(fixture, 'package.json'), JSON.stringify({ name: 'n8n-nodes-smoke', version: '0.0.0' }));
	await writeFile(join(fixture, 'nodes', 'Smoke', 'Smoke.node.ts'), 'export const wait = (ms: number): unknown => setTimeout(() => undefined, ms);\n');
	const [leg] = await runLegs(installDir, workDir, [{ id: 'smoke', dir: fixture, patterns: null }]);
	if (leg.passed || !leg.details?.includes('@n8n/community-nodes/no-restricted-globals')) {
		throw new ScanError(`smoke scan did not flag setTimeout in a .ts node (TypeScript parsing broken?): ${JSON.stringify(leg)}`);
	}
}

/** The scanner installed in the cache (reused when complete), with the versions it resolved. */
async function ensureScanner(reinstall: boolean, workDir: string): Promise<{ dir: string; marker: Marker; note: string }> {
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
	const endLog = async (): Promise<void> => await new Promise<void>((done) => log.end(() => done()));
	console.log(`scanner: installing ${SCANNER_PACKAGE}@${SCANNER_VERSION} into ${dir} ...`);
	let marker: Marker;
	try {
		await writeFile(join(tmp, 'package.json'), `${JSON.stringify({
			name: 'n8n-nodes-svc-scanner',
			private: true,
			description: `${SCANNER_PACKAGE} for scripts/scan-package.ts in n8n-nodes-svc`,
			dependencies: { [SCANNER_PACKAGE]: SCANNER_VERSION },
		}, null, '\t')}\n`);
		const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
		const install = await runCommand(npm, ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=warn', '--prefix', tmp], {
			cwd: tmp,
			env: childEnv(),
			log,
		});
		if (install.code !== 0) throw new ScanError(`npm install failed (exit ${install.code}):\n${lastLines(install.output, 30)}`);
		await smokeScan(tmp, workDir);
		marker = {
			scanner: SCANNER_VERSION,
			recipe: INSTALL_RECIPE,
			versions: await resolvedVersions(tmp),
			installedAt: new Date().toISOString(),
			installSeconds: Math.round((Date.now() - started) / 1000),
		};
		await endLog();
		const promoted = await promoteInstall(tmp, dir, { file: MARKER, value: marker, read: readMarker }, reinstall);
		if (!promoted.ours) return { dir, marker: promoted.marker, note: `installed by another run (${dir})` };
	} catch (error) {
		await endLog();
		const kept = join(root, `scanner-${SCANNER_VERSION}.failed.log`);
		await copyFile(logPath, kept).catch(() => undefined);
		await rm(tmp, { recursive: true, force: true });
		const message = error instanceof Error ? error.message : String(error);
		throw new ScanError(`installing the scanner failed: ${message}\nFull log: ${kept}`);
	}
	return { dir, marker, note: `installed in ${seconds(started)} (${dir})` };
}

/** Fails loudly if the installed scanner no longer does what this script mirrors. */
async function checkScannerSource(installDir: string): Promise<void> {
	const source = await readFile(join(scannerDir(installDir), 'scanner', 'scanner.mjs'), 'utf8');
	const missing = EXPECTED_CALLS.filter((call) => !source.includes(call));
	if (missing.length > 0) {
		throw new ScanError(`scanner.mjs of ${SCANNER_PACKAGE}@${SCANNER_VERSION} no longer contains ${missing.join(' / ')}: review scripts/scan-package.ts`);
	}
}

async function packageScripts(projectDir: string): Promise<Record<string, string>> {
	const manifest = JSON.parse(await readFile(join(projectDir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
	return manifest.scripts ?? {};
}

async function walkFiles(dir: string): Promise<{ count: number; bytes: number }> {
	let count = 0;
	let bytes = 0;
	for (const entry of await readdir(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) {
			const sub = await walkFiles(path);
			count += sub.count;
			bytes += sub.bytes;
		} else {
			count += 1;
			bytes += (await lstat(path)).size;
		}
	}
	return { count, bytes };
}

/**
 * The files a commit of the work tree would hold (tracked and untracked-but-not-ignored), copied to
 * `dest`: what the scanner's GitHub download of the attested commit would contain. Outside a git
 * work tree, the project folder itself is used.
 */
async function snapshotSource(projectDir: string, dest: string): Promise<{ dir: string; how: string }> {
	const listed = await runCommand('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: projectDir }).catch(() => undefined);
	if (!listed || listed.code !== 0) return { dir: projectDir, how: 'the project folder (not a git work tree)' };
	let copied = 0;
	for (const file of listed.stdout.split('\0').filter(Boolean)) {
		const from = join(projectDir, file);
		const info = await stat(from).catch(() => undefined);
		if (!info?.isFile()) continue; // deleted in the work tree, a submodule, or a dangling link
		const to = join(dest, file);
		await mkdir(dirname(to), { recursive: true });
		await copyFile(from, to);
		copied += 1;
	}
	return { dir: dest, how: `${copied} files git would commit from the work tree` };
}

/** Stylish output with temp paths replaced by ones that point at real files. */
function relabel(details: string, replacements: Array<[string, string]>): string {
	let text = details;
	for (const [from, to] of replacements) text = text.split(from).join(to);
	return text.replace(/^\n+/, '').trimEnd();
}

function counts(details: string | undefined): { errors: number; warnings: number } {
	// eslint-disable-next-line no-control-regex
	const plain = (details ?? '').replace(/\u001b\[[0-9;]*m/g, '');
	const match = /(\d+) problems? \((\d+) errors?, (\d+) warnings?\)/.exec(plain);
	return match ? { errors: Number(match[2]), warnings: Number(match[3]) } : { errors: 0, warnings: 0 };
}

async function main(): Promise<number> {
	const { values } = parseArgs({
		options: {
			project: { type: 'string' },
			tarball: { type: 'string' },
			'no-build': { type: 'boolean', default: false },
			'no-source': { type: 'boolean', default: false },
			reinstall: { type: 'boolean', default: false },
			keep: { type: 'boolean', default: false },
			help: { type: 'boolean', short: 'h', default: false },
		},
	});
	if (values.help) {
		console.log('Usage: tsx scripts/scan-package.ts [--no-build] [--no-source] [--project DIR] [--tarball FILE.tgz] [--reinstall] [--keep]');
		return 0;
	}
	const started = Date.now();
	const projectDir = resolve(values.project ?? PROJECT_DIR);
	const workDir = await mkdtemp(join(tmpdir(), 'n8n-scan-'));
	try {
		const scanner = await ensureScanner(values.reinstall, workDir);
		await checkScannerSource(scanner.dir);
		const deps = Object.entries(scanner.marker.versions).filter(([name]) => name !== SCANNER_PACKAGE);
		console.log(`scanner: ${SCANNER_PACKAGE}@${scanner.marker.versions[SCANNER_PACKAGE]}, ${scanner.note}`);
		console.log(`         ${deps.map(([name, version]) => `${name} ${version}`).join(', ')}`);

		let tarball: string;
		if (values.tarball) {
			tarball = resolve(values.tarball);
		} else {
			if (!values['no-build'] && (await packageScripts(projectDir)).build) {
				const buildStarted = Date.now();
				const build = await runCommand('npm', ['run', 'build', '--silent'], { cwd: projectDir });
				if (build.code !== 0) throw new ScanError(`npm run build failed (exit ${build.code}):\n${lastLines(build.output, 30)}`);
				console.log(`build:   npm run build (${seconds(buildStarted)})`);
			}
			const packStarted = Date.now();
			tarball = await packTarball(join(workDir, 'pack'), projectDir);
			console.log(`pack:    npm pack (${seconds(packStarted)})`);
		}

		// As the scanner's downloadAndExtractPackage: tar -xzf <tgz> -C <dir> --strip-components=1.
		const packageDir = join(workDir, 'tarball');
		await mkdir(packageDir, { recursive: true });
		const untar = await runCommand('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1'], { cwd: workDir });
		if (untar.code !== 0) throw new ScanError(`tar extraction of ${tarball} failed:\n${lastLines(untar.output, 30)}`);
		const manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as { name: string; version: string };
		const unpacked = await walkFiles(packageDir);
		const tarballBytes = (await stat(tarball)).size;
		console.log(`tarball: ${values.tarball ? tarball : basename(tarball)} (${manifest.name}@${manifest.version}): ${kb(tarballBytes)} packed, ${kb(unpacked.bytes)} unpacked, ${unpacked.count} files`);

		const legs: LegRequest[] = [];
		const replacements: Array<[string, string]> = [[`${packageDir}${sep}`, `${basename(tarball)}:package/`]];
		let sourceHow = '';
		if (!values['no-source']) {
			const source = await snapshotSource(projectDir, join(workDir, 'source'));
			sourceHow = source.how;
			legs.push({ id: 'source', dir: source.dir, findRootOf: manifest.name, patterns: null });
			// Paths as the user would open them: relative to the current folder when inside it.
			const shown = relative(process.cwd(), projectDir);
			const prefix = shown === '' ? '' : shown.startsWith('..') ? `${projectDir}${sep}` : `${shown}${sep}`;
			replacements.unshift([`${source.dir}${sep}`, prefix]);
		}
		legs.push({ id: 'tarball', dir: packageDir, patterns: TARBALL_PATTERNS });

		const scanStarted = Date.now();
		const results = await runLegs(scanner.dir, workDir, legs);
		console.log(`scan:    ${seconds(scanStarted)}`);
		console.log('');
		console.log('provenance: NOT CHECKED (needs the published version in the registry). Publish from a public GitHub repo with `npm publish --provenance`, or the real scan fails.');

		let errors = 0;
		let warnings = 0;
		const failed: string[] = [];
		for (const leg of results) {
			const what = leg.id === 'source'
				? `source  [${leg.patterns.join(', ')}] of ${sourceHow}`
				: `tarball [${leg.patterns.join(', ')}] of the packed package`;
			const found = counts(leg.details);
			errors += found.errors;
			warnings += found.warnings;
			if (leg.passed) {
				console.log(`${what}: passed`);
				continue;
			}
			failed.push(leg.id);
			if (found.errors === 0) errors += 1; // a failure without ESLint errors (crash, missing package root)
			console.log(`${what}: FAILED (${leg.message ?? 'no reason given'})`);
			if (leg.details) console.log(`\n${relabel(leg.details, replacements)}\n`);
		}
		console.log('');
		console.log(`tarball size: ${kb(tarballBytes)} (${tarballBytes} bytes)`);
		if (failed.length === 0) {
			console.log(`scan passed: ${manifest.name}@${manifest.version} (${seconds(started)})`);
			return 0;
		}
		console.log(`scan FAILED: ${errors} error(s), ${warnings} warning(s) in ${failed.join(' and ')} (${seconds(started)})`);
		return 1;
	} finally {
		if (values.keep) console.log(`kept: ${workDir}`);
		else await rm(workDir, { recursive: true, force: true });
	}
}

main().then(
	(code) => {
		process.exitCode = code;
	},
	(error: unknown) => {
		console.error(`scan could not run: ${error instanceof Error ? (error instanceof ScanError ? error.message : error.stack) : String(error)}`);
		process.exitCode = 2;
	},
);
