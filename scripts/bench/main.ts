/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * `npm run bench`: this package against what users would use without it, side by side, in real
 * n8n 2.41.1 (the package installed from its `npm pack` tarball) against the sandbox on loopback.
 * Prints every table with its targets (met or not) and writes it as markdown to
 * .tmp/bench-latest.md, every run to .tmp/bench-latest.json.
 *
 *   tsx scripts/bench/main.ts [--only=a,b,c,d,e,k,t,f,f-settings,f-queue,p] [--reps=N] [--quick] [--no-build] [--tarball=path.tgz] [--queue-deliveries=N] [--burst-env=NAME=value,…] [--memory-limit-mb=N] [--receivers=svc,svc-batch,svc-list,svc-list-batch,floor,floor-when-done,peer] [--n8n=v2|v1]
 *
 *   (a) 10,000 upserts, no server latency: per-item cost of the Svc node against a floor fixture
 *       (n8n's request helper and nothing else), the HTTP Request node and a raw client
 *   (b) 1,000 upserts at 20 ms server latency, 5 repetitions: time and the most requests in flight
 *   (c) 2,000 upserts at 50 req/s (429 + Retry-After): time against the floor, failures, duplicates
 *   (d) signature verification of a 1 KB delivery: verifyDelivery against bare node:crypto
 *   (e) peak RSS of n8n during (a), tarball size, time to require the built node
 *   (k) connections per 1,000 requests, through a counting TCP proxy (is keep-alive in effect?)
 *   (t) bytes a model receives per call of each read operation as an AI tool, beside n8n's HTTP
 *       Request Tool making the same call, through an MCP Server Trigger
 *   (f) a burst of 5,000 signed deliveries (500 repeats) into the Svc Trigger and into the peer
 *       workflow users build without this package, each in a fresh n8n
 *   (f-settings) the same burst into the Svc Trigger under each expression-engine setting an
 *       operator can choose (defaults, pool size 2 and 4, lazy isolates, the legacy engine)
 *   (f-queue) the same kind of burst (2,000 deliveries unless --queue-deliveries) in queue mode,
 *       1 then 2 webhook processors behind nginx, into Svc Trigger run from each delivery and from
 *       the event list (one per event and in batches of 100), and the peer
 *   (p) Svc Pull Trigger: a backlog of 5,000 events drained after a publish (beside (f)'s
 *       accepted rate when both run), requests per idle poll, event-to-run latency
 *
 * --quick runs small counts once, to check the script itself; its figures mean little.
 */
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DEMO_KEYS, startSandbox } from '../../sandbox';
import { makeLocalCa } from '../../harness/local-ca';
import { ensureN8nRuntime } from '../../harness/n8n-runtime/install';
import { packTarball } from '../../harness/pack';
import { runChecked } from '../../harness/commands';
import { PROJECT_DIR, TMP_DIR } from '../../harness/project';
import { runActionScenarios, type ActionResults } from './action/session';
import { tableD, tableE, tableK } from './action/footprint-tables';
import { tableA, tableB, tableC } from './action/tables';
import { CONCURRENCY } from './action/runner';
import { tableCapacity } from './burst/capacity';
import type { BurstRun } from './burst/measure';
import { scenarioF, scenarioFQueue, scenarioFSettings } from './burst/scenarios';
import { tableFTargets } from './burst/targets-table';
import { FLOORS_NOTE, tableBurstRuns, tableF, tableFQueue } from './burst/tables';
import { scenarioP, type PullRun } from './pull/scenario';
import { scenarioPBatch, type PullModeRun } from './pull/batches';
import { tableBatches, tableP } from './pull/table';
import { scenarioT, type ToolAnswer } from './tools/answers';
import { tableT } from './tools/table';
import { describeMachine, type Machine } from './machine';
import { benchRequire, benchSignature } from './micro';
import { Phases } from './phases';
import { markdownSection, type Table } from './report';
import { settingsFrom, type ScenarioId, type Settings } from './settings';
import { count, fmt } from './stats';

const MARKDOWN_OUT = join(TMP_DIR, 'bench-latest.md');
const JSON_OUT = join(TMP_DIR, 'bench-latest.json');
const API_KEY = DEMO_KEYS[0].key;
/** The scenarios that share one n8n with the Svc node, the HTTP Request node and the floor fixture. */
const ACTION_SCENARIOS: ScenarioId[] = ['a', 'b', 'c', 'k'];

async function buildAndPack(build: boolean): Promise<string> {
	if (build) {
		console.log('Building (npm run build)…');
		await runChecked('npm run build', 'npm', ['run', 'build', '--silent'], { cwd: PROJECT_DIR });
	}
	// Our own folder: the e2e suite empties its pack folder whenever it packs.
	return await packTarball(join(TMP_DIR, 'bench', 'pack'));
}

function header(host: Machine, settings: Settings, phases: Phases): string {
	const other = phases.otherDuringMeasurements();
	const burstEnv = Object.entries(settings.burstEnv).map(([name, value]) => `${name}=${value}`);
	const burstEnvNote =
		burstEnv.length > 0 ? `, run with ${burstEnv.join(', ')} (not n8n's defaults)` : '';
	const counts = settings.quick ? ' (--quick: small counts, figures not meaningful)' : '';
	return [
		'## Benchmark',
		'',
		`Machine: ${host.cpuModel}, ${host.cores} cores, ${fmt(host.ramGiB)} GiB RAM, ${host.kernel}. Node ${host.node}, n8n ${host.n8n}. ${host.date}. Other processes on the machine used ${fmt(other.seconds, 'CPU-s')} during the measurements (${fmt(other.share * 100)} % of the ${host.cores} cores)${other.share > 0.05 ? ': figures may be skewed' : ''}.`,
		'',
		`Package installed from its npm pack tarball${settings.tarball ? ` (${settings.tarball})` : ''}, n8n log level warn${settings.n8n === 'v1' ? ' (info for (f-queue) on n8n 1.x, see scenarioFQueue)' : ''}, the sandbox on loopback. (a)–(k): one n8n (SQLite, a forced full GC before every run), medians of the repetitions unless noted. Svc node: resource lead, operation upsert, Map Automatically, default options (concurrency ${CONCURRENCY}). HTTP Request node v4.2: POST /v1/leads with the Svc API credential (predefined credential type), JSON body \`{{ $json }}\`, a UUID-shaped Idempotency-Key built from the execution id and item index, default options. Raw client: node:http, keep-alive agent, concurrency ${CONCURRENCY}, in its own process. (f), (f-queue): n8n over https with a local CA${burstEnvNote}. \`npm run bench\` took ${fmt(phases.elapsedMs() / 60_000)} min${counts}.`,
		'',
	].join('\n');
}

function actionTables(results: ActionResults | undefined, settings: Settings): Table[] {
	if (!results) return [];
	return [
		...(results.a ? [tableA(results.a, settings)] : []),
		...(results.b ? [tableB(results.b, settings)] : []),
		...(results.c ? [tableC(results.c, settings)] : []),
	];
}

async function main(argv: string[]): Promise<void> {
	const settings = settingsFrom(argv);
	const chosen = settings.only;
	const phases = new Phases();
	const tarball =
		settings.tarball ??
		(await phases.run(
			'package: build and npm pack',
			async () => await buildAndPack(settings.build),
		));
	const runtime = await ensureN8nRuntime(settings.n8n, { verbose: false });
	const host = await describeMachine(runtime);
	const tables: Table[] = [];
	const signature = chosen.has('d')
		? await phases.run(
				'(d) signature verification',
				async () =>
					await Promise.resolve(
						benchSignature(
							join(PROJECT_DIR, 'dist'),
							settings.quick ? 1 : 3,
							settings.quick ? 300 : 1000,
						),
					),
			)
		: undefined;
	const required = chosen.has('e')
		? await phases.run(
				'(e) require time',
				async () => await benchRequire(runtime.nodeBin, PROJECT_DIR, settings.quick ? 3 : 9),
			)
		: undefined;

	// One CA for every n8n of the bursts; the sandbox trusts it for its deliveries.
	const tlsDir = await mkdtemp(join(tmpdir(), 'svc-bench-tls-'));
	const tls = await makeLocalCa(tlsDir);
	const sandbox = await startSandbox({ allowLoopbackWebhooks: true, trustedCa: tls.caPem });
	let action: ActionResults | undefined;
	let toolAnswers: ToolAnswer[] | undefined;
	let pull: PullRun | undefined;
	let pullModes: PullModeRun[] | undefined;
	const bursts: { single?: BurstRun[]; settings?: BurstRun[]; queue?: BurstRun[] } = {};
	try {
		if (ACTION_SCENARIOS.some((id) => chosen.has(id))) {
			action = await runActionScenarios({
				settings,
				runtime,
				tarball,
				sandbox,
				apiKey: API_KEY,
				phases,
			});
		}
		// After the action scenarios: it adds leads to the shared sandbox.
		if (chosen.has('t'))
			toolAnswers = await phases.run(
				'(t) bytes per tool answer',
				async () => await scenarioT({ runtime, tarball, sandbox, apiKey: API_KEY }),
			);
		const burstContext = { settings, runtime, tarball, tls, sandbox, apiKey: API_KEY };
		if (chosen.has('f'))
			bursts.single = await phases.run(
				`(f) burst of ${settings.burst.deliveries} deliveries, single main`,
				async () => await scenarioF(burstContext),
			);
		if (chosen.has('f-settings'))
			bursts.settings = await phases.run(
				`(f-settings) burst of ${settings.burst.deliveries} deliveries under each engine setting`,
				async () => await scenarioFSettings(burstContext),
			);
		if (chosen.has('f-queue'))
			bursts.queue = await phases.run(
				`(f-queue) burst of ${settings.queueBurst.deliveries} deliveries, queue mode`,
				async () => await scenarioFQueue(burstContext),
			);
		if (chosen.has('p'))
			pull = await phases.run(
				`(p) Svc Pull Trigger: a backlog of ${settings.pullBacklog} events`,
				async () =>
					await scenarioP({
						runtime,
						tarball,
						sandbox,
						backlog: settings.pullBacklog,
						latencySamples: settings.pullLatencySamples,
					}),
			);
		if (chosen.has('p-batch'))
			pullModes = await phases.run(
				`(p-batch) Svc Pull Trigger, one per event and in batches: a backlog of ${settings.pullBacklog} events`,
				async () =>
					await scenarioPBatch({ runtime, tarball, sandbox, backlog: settings.pullBacklog }),
			);
	} finally {
		await sandbox.close();
		await rm(tlsDir, { recursive: true, force: true });
	}

	tables.push(...actionTables(action, settings));
	if (signature) tables.push(tableD(signature));
	if (required) tables.push(tableE(action?.a, (await stat(tarball)).size / 1024, required));
	if (action?.k) tables.push(tableK(action.k));
	if (toolAnswers) tables.push(tableT(toolAnswers));
	if (bursts.single) {
		const burstTitle = `(f) a burst of ${count(settings.burst.deliveries)} deliveries into one n8n (single main, SQLite), run by run`;
		tables.push(
			tableF(bursts.single, settings.burst, settings.burstEnv) ??
				tableBurstRuns(burstTitle, bursts.single, settings.burst, FLOORS_NOTE),
			tableFTargets(bursts.single, settings.burstEnv),
		);
	}
	if (bursts.settings) {
		const settingsTitle = `(f-settings) a burst of ${count(settings.burst.deliveries)} deliveries into the Svc Trigger under each setting of n8n's expression engine (single main, SQLite)`;
		tables.push(
			tableBurstRuns(
				settingsTitle,
				bursts.settings,
				settings.burst,
				'Each setting runs in a fresh n8n with only that setting changed from the defaults (and what the receivers need); --burst-env does not apply. What each setting costs or risks: docs/performance.md.',
			),
		);
	}
	if (bursts.queue)
		tables.push(
			tableFQueue(bursts.queue, settings.queueBurst),
			tableCapacity(bursts.queue, host.cores),
		);
	if (pull) tables.push(tableP(pull, bursts.single));
	if (pullModes) tables.push(tableBatches(pullModes, bursts.single));
	const problems =
		action && action.problems.length > 0
			? ['#### Problems seen', '', ...action.problems.map((problem) => `- ${problem}`), ''].join(
					'\n',
				)
			: '';
	const markdown = [
		header(host, settings, phases),
		...tables.map(markdownSection),
		problems,
		phases.markdown(),
	]
		.filter(Boolean)
		.join('\n');

	console.log(`\n${markdown}`);
	await mkdir(TMP_DIR, { recursive: true });
	await writeFile(MARKDOWN_OUT, markdown);
	const other = phases.otherDuringMeasurements();
	await writeFile(
		JSON_OUT,
		`${JSON.stringify({ settings: { ...settings, only: [...chosen] }, machine: host, otherCpuSeconds: other.seconds, signature, required, phases: phases.list, runs: action?.runs ?? [], toolAnswers, bursts, pull, pullModes }, null, '\t')}\n`,
	);
	console.log(`Written: ${MARKDOWN_OUT} (every run: ${JSON_OUT})`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
	console.error(error instanceof Error ? (error.stack ?? error.message) : error);
	process.exitCode = 1;
});
