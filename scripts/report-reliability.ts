/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * `npm run report:reliability`: the reliability figures in one table. The bulk fault scenarios
 * run here at full size in n8n's engine (in-process) against the sandbox; the matrix-style
 * checks (secret hygiene, bad deliveries, churn, properties, timeouts) are the jest suites,
 * whose results are counted.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import type { FaultRule, Sandbox } from '../sandbox';
import { startSandbox } from '../sandbox';
import { shutdownEngine } from '../harness/engine';
import { runSvc } from '../harness/engine/svc';
import { runJest } from '../harness/jest-run';
import { markdownTable } from '../harness/markdown-table';
import { logTail } from '../harness/log-tail';
import { PROJECT_DIR, TMP_DIR } from '../harness/project';

const rows: string[][] = [];

/** 20% of requests fail: 5xx, resets after the write was committed, 409 in flight, 429 with Retry-After. */
function twentyPercent(route: string): FaultRule {
	return {
		route,
		errorRate: 0.09,
		errorStatuses: [500, 502, 503],
		resetRate: 0.05,
		conflictRate: 0.05,
		rateLimitedRate: 0.01,
		retryAfterSeconds: 1,
		seed: 2026,
	};
}

async function upserts(sandbox: Sandbox, count: number, settings: IDataObject = {}): Promise<void> {
	sandbox.state.reset();
	sandbox.state.faults.set([twentyPercent('POST /v1/leads')]);
	const items = Array.from({ length: count }, (_, index) => ({
		email: `r${index}@example.com`,
		first_name: `R${index}`,
		consent_status: 'granted',
	}));
	const started = Date.now();
	const result = await runSvc(
		sandbox,
		{ resource: 'lead', operation: 'upsert', inputMode: 'mapAutomatically' },
		{ items, settings },
	);
	const stats = sandbox.state.stats.snapshot();
	const failed =
		result.output.filter((item) => item.json.error !== undefined).length +
		(result.error ? count - result.output.length : 0);
	const distinct = new Set(
		[...sandbox.state.store.leads.values()]
			.filter((lead) => /^r\d+@example\.com$/.test(lead.email ?? ''))
			.map((lead) => lead.email),
	).size;
	rows.push([
		`${count} lead upserts, 20% faults${settings.retryOnFail ? ', Retry On Fail on' : ''}`,
		`created ${stats.leadsCreated} of ${count} distinct (${distinct} stored), ${failed} failed items, ${stats.leadsCreated - distinct} duplicates`,
		`${stats.faultsInjected} faults injected, ${stats.requests} requests, ${stats.replays} replays, ${((Date.now() - started) / 1000).toFixed(1)} s`,
		stats.leadsCreated === count && distinct === count && failed === 0 ? 'met' : 'MISSED',
	]);
}

async function dispatches(sandbox: Sandbox, count: number): Promise<void> {
	sandbox.state.reset();
	sandbox.state.faults.set([twentyPercent('POST /v1/campaigns/{campaign_id}/dispatch')]);
	const items = Array.from({ length: count }, (_, index) => ({
		lead: `lead_000${(index % 9) + 1}`,
	}));
	const started = Date.now();
	const result = await runSvc(
		sandbox,
		{
			resource: 'campaign',
			operation: 'dispatch',
			campaignId: { __rl: true, mode: 'id', value: 'cmp_0002' },
			confirmDispatch: true,
			leadIds: '={{ $json.lead }}',
		},
		{ items },
	);
	const stats = sandbox.state.stats.snapshot();
	const ids = new Set(result.output.map((item) => item.json.dispatch_id));
	const failed =
		result.output.filter((item) => item.json.error !== undefined).length +
		(result.error ? count - result.output.length : 0);
	rows.push([
		`${count} campaign dispatches, 20% faults`,
		`${stats.dispatches} dispatches created for ${count} items, ${ids.size} distinct ids in the output, ${failed} failed items`,
		`${stats.faultsInjected} faults injected, ${stats.replays} replays, ${((Date.now() - started) / 1000).toFixed(1)} s`,
		stats.dispatches === count && ids.size === count && failed === 0 ? 'met' : 'MISSED',
	]);
}

/** Runs jest suites and counts their tests by outcome. */
async function suites(label: string, paths: string[], target: string): Promise<void> {
	const file = join(TMP_DIR, `jest-${label.replace(/\W+/g, '-')}`);
	const logFile = `${file}.log`;
	// A failing suite still writes its report; the counts below say what failed.
	const run = await runJest(paths, { reportFile: `${file}.json`, logFile });
	if (!run.outcome)
		throw new Error(
			`${label}: jest exited with code ${run.exitCode} and wrote no report\n--- last lines of ${logFile} ---\n${await logTail(logFile)}`,
		);
	const { passed, failed } = run.outcome;
	const ran = passed.length + failed.length;
	rows.push([
		label,
		`${passed.length} of ${ran} cases passed${failed.length ? `; failed: ${failed.join('; ')}` : ''}`,
		target,
		failed.length === 0 && ran > 0 ? 'met' : 'MISSED',
	]);
}

async function main(): Promise<void> {
	await mkdir(TMP_DIR, { recursive: true });
	const sandbox = await startSandbox();
	try {
		await upserts(sandbox, 5000);
		await upserts(sandbox, 500, { retryOnFail: true, maxTries: 3, waitBetweenTries: 1000 });
		await dispatches(sandbox, 1000);
	} finally {
		await sandbox.close();
		await shutdownEngine();
	}
	await suites(
		'Secret hygiene: 23 failure modes (key, Authorization value, signing secret)',
		['test/engine/secret-hygiene.test.ts'],
		'0 bytes in errors, execution data and debug logs',
	);
	await suites(
		'Bad deliveries to the trigger',
		[
			'test/engine/svc-trigger.test.ts',
			'-t',
			'bad deliveries|re-delivery|own retry|did not subscribe',
		],
		'0 executions for each bad one, valid ones exactly once',
	);
	await suites(
		'Lifecycle churn: 50 cycles with static data loss and remote deletion',
		['test/engine/trigger-churn.test.ts'],
		'0 leaked, never more than one live',
	);
	await suites(
		'Property tests (fast-check): verifier, key formats, idempotency keys, pagination',
		['test/unit/properties.test.ts', 'test/unit/pagination.test.ts'],
		'no exception escapes, no false accept, stable keys',
	);
	await suites(
		'Faults, Retry On Fail and timeouts in the engine',
		['test/engine/svc-faults.test.ts'],
		'exactly once; hung server fails clearly',
	);

	const table = markdownTable(['scenario', 'result', 'detail', 'target'], rows);
	const engine = JSON.parse(
		await readFile(join(PROJECT_DIR, 'node_modules', 'n8n-core', 'package.json'), 'utf8'),
	) as { version: string };
	const header = `Reliability report, ${new Date().toISOString().slice(0, 10)}, n8n-core ${engine.version} engine in-process, Node ${process.version}`;
	console.log(`\n${header}\n\n${table}\n`);
	await writeFile(join(TMP_DIR, 'reliability-latest.md'), `${header}\n\n${table}\n`);
	if (rows.some((row) => row[3] !== 'met')) process.exitCode = 1;
}

void main();
