/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- tooling that runs in Node.js beside n8n, never inside it */
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
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve, sep } from 'node:path';
import { parseArgs, stripVTControlCharacters } from 'node:util';

import { packTarball } from '../harness/pack';
import {
	checkScannerSource,
	ensureScanner,
	kb,
	type LegRequest,
	runLegs,
	ScanError,
	SCANNER_PACKAGE,
	secondsSince,
	TARBALL_PATTERNS,
} from '../harness/package-scanner';
import { runCommand } from '../harness/commands';
import { copyWorkTree } from '../harness/work-tree';
import { lastLines } from '../harness/log-tail';
import { PROJECT_DIR } from '../harness/project';

async function packageScripts(projectDir: string): Promise<Record<string, string>> {
	const manifest = JSON.parse(await readFile(join(projectDir, 'package.json'), 'utf8')) as {
		scripts?: Record<string, string>;
	};
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

/** What the scanner's GitHub download of the attested commit would contain. */
async function snapshotSource(
	projectDir: string,
	dest: string,
): Promise<{ dir: string; how: string }> {
	const copied = await copyWorkTree(projectDir, dest);
	return copied === undefined
		? { dir: projectDir, how: 'the project folder (not a git work tree)' }
		: { dir: dest, how: `${copied} files git would commit from the work tree` };
}

/** Stylish output with temp paths replaced by ones that point at real files. */
function relabel(details: string, replacements: Array<[string, string]>): string {
	let text = details;
	for (const [from, to] of replacements) text = text.split(from).join(to);
	return text.replace(/^\n+/, '').trimEnd();
}

function counts(details: string | undefined): { errors: number; warnings: number } {
	const plain = stripVTControlCharacters(details ?? '');
	const match = /(\d+) problems? \((\d+) errors?, (\d+) warnings?\)/.exec(plain);
	return match
		? { errors: Number(match[2]), warnings: Number(match[3]) }
		: { errors: 0, warnings: 0 };
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
		console.log(
			'Usage: tsx scripts/scan-package.ts [--no-build] [--no-source] [--project DIR] [--tarball FILE.tgz] [--reinstall] [--keep]',
		);
		return 0;
	}
	const started = Date.now();
	const projectDir = resolve(values.project ?? PROJECT_DIR);
	const workDir = await mkdtemp(join(tmpdir(), 'n8n-scan-'));
	try {
		const scanner = await ensureScanner(values.reinstall, workDir);
		await checkScannerSource(scanner.dir);
		const deps = Object.entries(scanner.marker.versions).filter(
			([name]) => name !== SCANNER_PACKAGE,
		);
		console.log(
			`scanner: ${SCANNER_PACKAGE}@${scanner.marker.versions[SCANNER_PACKAGE]}, ${scanner.note}`,
		);
		console.log(`         ${deps.map(([name, version]) => `${name} ${version}`).join(', ')}`);

		let tarball: string;
		if (values.tarball) {
			tarball = resolve(values.tarball);
		} else {
			if (!values['no-build'] && (await packageScripts(projectDir)).build) {
				const buildStarted = Date.now();
				const build = await runCommand('npm', ['run', 'build', '--silent'], { cwd: projectDir });
				if (build.code !== 0)
					throw new ScanError(
						`npm run build failed (exit ${build.code}):\n${lastLines(build.output, 30)}`,
					);
				console.log(`build:   npm run build (${secondsSince(buildStarted)})`);
			}
			const packStarted = Date.now();
			tarball = await packTarball(join(workDir, 'pack'), projectDir);
			console.log(`pack:    npm pack (${secondsSince(packStarted)})`);
		}

		// As the scanner's downloadAndExtractPackage: tar -xzf <tgz> -C <dir> --strip-components=1.
		const packageDir = join(workDir, 'tarball');
		await mkdir(packageDir, { recursive: true });
		const untar = await runCommand(
			'tar',
			['-xzf', tarball, '-C', packageDir, '--strip-components=1'],
			{ cwd: workDir },
		);
		if (untar.code !== 0)
			throw new ScanError(`tar extraction of ${tarball} failed:\n${lastLines(untar.output, 30)}`);
		const manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as {
			name: string;
			version: string;
		};
		const unpacked = await walkFiles(packageDir);
		const tarballBytes = (await stat(tarball)).size;
		console.log(
			`tarball: ${values.tarball ? tarball : basename(tarball)} (${manifest.name}@${manifest.version}): ${kb(tarballBytes)} packed, ${kb(unpacked.bytes)} unpacked, ${unpacked.count} files`,
		);

		const legs: LegRequest[] = [];
		const replacements: Array<[string, string]> = [
			[`${packageDir}${sep}`, `${basename(tarball)}:package/`],
		];
		let sourceHow = '';
		if (!values['no-source']) {
			const source = await snapshotSource(projectDir, join(workDir, 'source'));
			sourceHow = source.how;
			legs.push({ id: 'source', dir: source.dir, findRootOf: manifest.name, patterns: null });
			// Paths as the user would open them: relative to the current folder when inside it.
			const shown = relative(process.cwd(), projectDir);
			const prefix =
				shown === '' ? '' : shown.startsWith('..') ? `${projectDir}${sep}` : `${shown}${sep}`;
			replacements.unshift([`${source.dir}${sep}`, prefix]);
		}
		legs.push({ id: 'tarball', dir: packageDir, patterns: TARBALL_PATTERNS });

		const scanStarted = Date.now();
		const results = await runLegs(scanner.dir, workDir, legs);
		console.log(`scan:    ${secondsSince(scanStarted)}`);
		console.log('');
		console.log(
			'provenance: NOT CHECKED (needs the published version in the registry). Publish from a public GitHub repo with `npm publish --provenance`, or the real scan fails.',
		);

		let errors = 0;
		let warnings = 0;
		const failed: string[] = [];
		for (const leg of results) {
			const what =
				leg.id === 'source'
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
			console.log(`scan passed: ${manifest.name}@${manifest.version} (${secondsSince(started)})`);
			return 0;
		}
		console.log(
			`scan FAILED: ${errors} error(s), ${warnings} warning(s) in ${failed.join(' and ')} (${secondsSince(started)})`,
		);
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
		console.error(
			`scan could not run: ${error instanceof Error ? (error instanceof ScanError ? error.message : error.stack) : String(error)}`,
		);
		process.exitCode = 2;
	},
);
