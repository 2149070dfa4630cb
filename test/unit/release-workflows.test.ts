/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { parse } from 'yaml';

import { runCommand } from '../../harness/commands';
import { releaseRefusal } from '../../harness/release';

const ROOT = join(__dirname, '..', '..');

interface Step {
	name?: string;
	uses?: string;
	run?: string;
	with?: Record<string, unknown>;
	env?: Record<string, string>;
}

interface Job {
	'runs-on': string;
	permissions?: Record<string, string>;
	steps: Step[];
}

interface Workflow {
	on: Record<string, { tags?: string[]; branches?: string[] } | null>;
	permissions?: Record<string, string>;
	jobs: Record<string, Job>;
}

function workflow(file: string): Workflow {
	return parse(readFileSync(join(ROOT, '.github', 'workflows', file), 'utf8')) as Workflow;
}

/** GitHub's filter patterns, as far as these workflows use them: `*` (no slash), `**` (anything). */
function matchesFilter(pattern: string, ref: string): boolean {
	const source = pattern
		.split('**')
		.map((part) =>
			part
				.split('*')
				.map((literal) => literal.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
				.join('[^/]*'),
		)
		.join('.*');
	return new RegExp(`^${source}$`).test(ref);
}

/** The only job of a workflow (both files have one). */
function onlyJob(flow: Workflow): Job {
	const jobs = Object.values(flow.jobs);
	expect(jobs).toHaveLength(1);
	return jobs[0];
}

/** Index of the first step whose `run` matches, failing the test when there is none. */
function stepIndex(steps: Step[], run: RegExp): number {
	const index = steps.findIndex((step) => step.run !== undefined && run.test(step.run));
	if (index === -1)
		throw new Error(
			`no step runs ${String(run)}; steps: ${steps.map((step) => step.run ?? step.uses).join(' | ')}`,
		);
	return index;
}

function nodeMajor(job: Job): number {
	const setup = job.steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
	expect(setup).toBeDefined();
	return Number.parseInt(String(setup?.with?.['node-version']), 10);
}

/** The checks both workflows run, as `npm` commands. */
const CHECKS: Array<[string, RegExp]> = [
	['install with npm ci', /^npm ci\b/m],
	['build', /^npm run build\b/m],
	['lint', /^npm run lint\b/m],
	['typecheck', /^npm run typecheck\b/m],
	['unit tests', /^npm run test:unit\b/m],
	['engine tests', /^npm run test:engine\b/m],
	['the package scan', /^npm run scan\b/m],
];

describe('publish.yml: the only release path', () => {
	const flow = workflow('publish.yml');
	const job = onlyJob(flow);
	const publish = stepIndex(job.steps, /\bnpm publish\b/);

	it('runs on version tags only', () => {
		expect(Object.keys(flow.on)).toEqual(['push']);
		const push = flow.on.push;
		expect(push?.branches).toBeUndefined();
		const tags = push?.tags ?? [];
		expect(tags.length).toBeGreaterThan(0);
		expect(tags.some((pattern) => matchesFilter(pattern, 'v1.2.3'))).toBe(true);
		expect(tags.some((pattern) => matchesFilter(pattern, 'main'))).toBe(false);
	});

	it('may mint the OIDC token for provenance, and only read the repository', () => {
		const permissions = { ...flow.permissions, ...job.permissions };
		expect(permissions['id-token']).toBe('write');
		expect(permissions.contents).toBe('read');
	});

	it('runs on Node 22 or newer, against the npm registry', () => {
		expect(nodeMajor(job)).toBeGreaterThanOrEqual(22);
		const setup = job.steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
		expect(setup?.with?.['registry-url']).toBe('https://registry.npmjs.org');
	});

	it('publishes once, with provenance, publicly, with the token from secrets', () => {
		const publishes = job.steps.filter(
			(step) => step.run !== undefined && /\bnpm publish\b/.test(step.run),
		);
		expect(publishes).toHaveLength(1);
		expect(publishes[0].run).toMatch(/--provenance\b/);
		expect(publishes[0].run).toMatch(/--access public\b/);
		expect(publishes[0].env?.NODE_AUTH_TOKEN).toMatch(/^\$\{\{\s*secrets\.\w+\s*\}\}$/);
		expect(publish).toBe(job.steps.length - 1);
	});

	it.each(CHECKS)('runs %s before publishing', (_what, run) => {
		expect(stepIndex(job.steps, run)).toBeLessThan(publish);
	});

	it('checks that the tag is the package.json version before installing', () => {
		const check = job.steps.findIndex(
			(step) => step.run?.includes('GITHUB_REF_NAME') && step.run.includes('package.json'),
		);
		expect(check).toBeGreaterThan(-1);
		expect(check).toBeLessThan(stepIndex(job.steps, /^npm ci\b/m));
	});
});

describe('ci.yml: the checks on every push and pull request', () => {
	const flow = workflow('ci.yml');
	const job = onlyJob(flow);

	it('runs on pushes and pull requests', () => {
		expect(flow.on).toHaveProperty('push');
		expect(flow.on).toHaveProperty('pull_request');
	});

	it('runs on Node 22 or newer and never publishes', () => {
		expect(nodeMajor(job)).toBeGreaterThanOrEqual(22);
		expect(
			job.steps.some((step) => step.run !== undefined && /\bnpm publish\b/.test(step.run)),
		).toBe(false);
		expect({ ...flow.permissions, ...job.permissions }['id-token']).toBeUndefined();
	});

	it.each(CHECKS)('runs %s', (_what, run) => {
		expect(stepIndex(job.steps, run)).toBeGreaterThanOrEqual(0);
	});

	it('installs before anything else runs', () => {
		const install = stepIndex(job.steps, /^npm ci\b/m);
		for (const [, run] of CHECKS.slice(1))
			expect(stepIndex(job.steps, run)).toBeGreaterThan(install);
	});
});

describe('prepublishOnly refuses a publish outside the release workflow', () => {
	const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
		scripts: Record<string, string>;
	};

	it('runs the guard first, then the build', () => {
		expect(pkg.scripts.prepublishOnly).toMatch(/^tsx scripts\/release-guard\.ts && npm run build$/);
	});

	it.each([
		['a developer machine', {}],
		['GitHub Actions without provenance', { GITHUB_ACTIONS: 'true' }],
		['provenance outside GitHub Actions', { npm_config_provenance: 'true' }],
		[
			'GITHUB_ACTIONS set to something else',
			{ GITHUB_ACTIONS: '1', npm_config_provenance: 'true' },
		],
	])('refuses on %s', (_where, env) => {
		expect(releaseRefusal(env)).toMatch(/^npm publish refused: .*RELEASING\.md/s);
	});

	it.each([
		['npm publish --provenance', { GITHUB_ACTIONS: 'true', npm_config_provenance: 'true' }],
		['NPM_CONFIG_PROVENANCE=true', { GITHUB_ACTIONS: 'true', NPM_CONFIG_PROVENANCE: 'true' }],
	])('lets GitHub Actions publish with %s', (_how, env) => {
		expect(releaseRefusal(env)).toBeUndefined();
	});

	it('exits 1 with the reason when run as npm would run it on a developer machine', async () => {
		const env: NodeJS.ProcessEnv = { ...process.env };
		for (const name of ['GITHUB_ACTIONS', 'npm_config_provenance', 'NPM_CONFIG_PROVENANCE'])
			delete env[name];
		const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
		const result = await runCommand(tsx, [join(ROOT, 'scripts', 'release-guard.ts')], {
			cwd: ROOT,
			env,
		});
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('npm publish refused');
		expect(result.stderr).toContain('not running in GitHub Actions');
	});
});
