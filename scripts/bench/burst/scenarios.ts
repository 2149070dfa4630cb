/* eslint-disable @n8n/community-nodes/no-restricted-imports, no-console -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * (f) the burst into each receiver on one n8n (a fresh one per receiver, so memory and database
 * start alike), and (f-queue) the same in queue mode: main + 2 workers, first 1 then 2 webhook
 * processors behind nginx.
 */
import { copyFile, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

import type { Sandbox } from '../../../sandbox';
import { startBalancer } from '../../../harness/balancer';
import type { LocalCa } from '../../../harness/local-ca';
import { importCredential } from '../../../harness/n8n/api';
import { credentialData } from '../../../harness/environment';
import type { N8nInstance } from '../../../harness/n8n/instance';
import { startN8n } from '../../../harness/n8n/process';
import { startQueueTopology } from '../../../harness/n8n/queue';
import type { N8nRuntime } from '../../../harness/n8n-runtime/install';
import { freePort } from '../../../harness/free-port';
import { PACKAGE_NODE_TYPES, TMP_DIR } from '../../../harness/project';
import {
	buildFloorExtension,
	FLOOR_TRIGGER_TYPE,
	FLOOR_TRIGGER_WHEN_DONE_TYPE,
} from '../floor/build';
import type { Settings } from '../settings';
import { burstInto, type BurstRun, type BurstTarget } from './measure';
import { RECEIVER_ENV, type ReceiverKind } from './receivers';

export interface BurstContext {
	settings: Settings;
	runtime: N8nRuntime;
	tarball: string;
	/** n8n's certificate; the sandbox trusts its CA for deliveries. */
	tls: LocalCa;
	sandbox: Sandbox;
	apiKey: string;
}

const SQLITE_FILES = ['database.sqlite', 'database.sqlite-wal'];

/** n8n's logs of the bursts, kept past the user folders they are removed with (warnings and errors only). */
const LOGS_DIR = join(TMP_DIR, 'bench', 'logs');

async function keepLog(logFile: string, name: string): Promise<void> {
	await mkdir(LOGS_DIR, { recursive: true });
	await copyFile(logFile, join(LOGS_DIR, `${name}.log`)).catch((error: unknown) =>
		console.error(`Could not keep ${logFile}: ${String(error)}`),
	);
}

async function credentialFor(context: BurstContext, n8n: N8nInstance) {
	return await importCredential(n8n, {
		name: 'Svc bench',
		type: 'svcApi',
		data: credentialData(n8n.runtime.version, {
			apiKey: context.apiKey,
			baseUrl: context.sandbox.url,
		}),
	});
}

/** SQLite's file and its write-ahead log, which holds recent writes until a checkpoint. */
async function sqliteBytes(n8n: N8nInstance): Promise<number> {
	const sizes = await Promise.all(
		SQLITE_FILES.map(
			async (file) =>
				(await stat(join(n8n.userFolder, '.n8n', file)).catch(() => undefined))?.size ?? 0,
		),
	);
	return sizes.reduce((sum, size) => sum + size, 0);
}

/** The compiled floor fixtures, for N8N_CUSTOM_EXTENSIONS: built once per scenario, loaded by every n8n of it. */
async function floorExtensions(): Promise<string> {
	return await buildFloorExtension(join(TMP_DIR, 'bench', 'floor-extension'));
}

/**
 * One burst into one receiver, in a fresh n8n (single main, SQLite) run with `env` beside what the
 * receivers need. Every such n8n loads the floor fixtures (`extensions`), so all run with the same
 * node types.
 */
async function burstIntoFreshN8n(
	context: BurstContext,
	extensions: string,
	kind: ReceiverKind,
	env: Record<string, string>,
	setting: string,
	run: number,
): Promise<BurstRun> {
	const n8n = await startN8n({
		runtime: context.runtime,
		packageTarball: context.tarball,
		protocol: 'https',
		tls: context.tls,
		logLevel: 'warn',
		env: { ...RECEIVER_ENV, ...env, N8N_CUSTOM_EXTENSIONS: extensions },
		expectNodeTypes: [...PACKAGE_NODE_TYPES, FLOOR_TRIGGER_TYPE, FLOOR_TRIGGER_WHEN_DONE_TYPE],
	});
	const target: BurstTarget = {
		setting,
		n8n,
		memoryLimitKb: context.settings.memoryLimitKb,
		processes: [{ label: 'n8n main + task runner', pid: n8n.pid }],
		// The user folder stays the same when n8n is restarted.
		databaseBytes: async () => await sqliteBytes(n8n),
	};
	try {
		const credential = await credentialFor(context, n8n);
		return await burstInto(
			kind,
			target,
			{ sandbox: context.sandbox, credential, webhookBase: n8n.webhookBaseUrl, run },
			context.settings.burst,
		);
	} finally {
		await keepLog(n8n.logFile, `f-${kind}-${run}`);
		// The one running now: burstInto replaces an n8n that ended during the run by a restarted one.
		await target.n8n.stop();
	}
}

export async function scenarioF(context: BurstContext): Promise<BurstRun[]> {
	const runs: BurstRun[] = [];
	const extensions = await floorExtensions();
	// The Svc Trigger against both floors of any community trigger and against the peer (or
	// `--receivers`), a round at a time, so that each round's receivers run under the same
	// conditions; every other round in reverse order, so that running first or last favours none.
	const { receivers, burstRounds } = context.settings;
	for (let round = 1; round <= burstRounds; round += 1) {
		const order = round % 2 === 1 ? receivers : [...receivers].reverse();
		for (const [index, kind] of order.entries()) {
			const setting =
				burstRounds > 1 ? `single main, SQLite, round ${round}` : 'single main, SQLite';
			runs.push(
				await burstIntoFreshN8n(
					context,
					extensions,
					kind,
					context.settings.burstEnv,
					setting,
					(round - 1) * receivers.length + index + 1,
				),
			);
		}
	}
	return runs;
}

/**
 * The settings an operator can choose for n8n's expression engine, as (f-settings) runs the Svc
 * Trigger under them, each alone on n8n's defaults. `--burst-env` does not apply here.
 */
const OPERATOR_SETTINGS: Array<Record<string, string>> = [
	{},
	{ N8N_EXPRESSION_ENGINE_POOL_SIZE: '2' },
	{ N8N_EXPRESSION_ENGINE_POOL_SIZE: '4' },
	{ N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' },
	{ N8N_EXPRESSION_ENGINE: 'legacy' },
];

/** "NAME=value" of a setting, or "n8n's defaults" for none. */
function settingName(env: Record<string, string>): string {
	const pairs = Object.entries(env).map(([name, value]) => `${name}=${value}`);
	return pairs.length > 0 ? pairs.join(', ') : "n8n's defaults";
}

export async function scenarioFSettings(context: BurstContext): Promise<BurstRun[]> {
	const runs: BurstRun[] = [];
	const extensions = await floorExtensions();
	for (const [index, env] of OPERATOR_SETTINGS.entries()) {
		runs.push(
			await burstIntoFreshN8n(context, extensions, 'svc', env, settingName(env), index + 1),
		);
	}
	return runs;
}

export async function scenarioFQueue(context: BurstContext): Promise<BurstRun[]> {
	const balancerPort = await freePort();
	const balancerUrl = `https://localhost:${balancerPort}/`;
	// The main registers webhook URLs at the balancer, whichever processors it spreads them to.
	const topology = await startQueueTopology({
		version: context.runtime.version,
		packageTarball: context.tarball,
		tls: context.tls,
		workers: 2,
		webhookProcessors: 2,
		webhookUrl: balancerUrl,
		env: { ...RECEIVER_ENV, ...context.settings.burstEnv },
		// 1.x answers ready before its REST routes exist; at info the harness also waits for the
		// line that says the editor is up (the quieter warn is kept where n8n answers ready late).
		logLevel: context.runtime.version === 'v1' ? 'info' : 'warn',
		expectNodeTypes: PACKAGE_NODE_TYPES,
	});
	const runs: BurstRun[] = [];
	try {
		const credential = await credentialFor(context, topology.main);
		const processes = [
			{ label: 'n8n main', pid: topology.main.pid },
			...topology.workers.map((worker) => ({
				label: `n8n ${worker.name} + task runner`,
				pid: worker.pid,
			})),
			...topology.webhookProcessors.map((processor) => ({
				label: `n8n ${processor.name}`,
				pid: processor.pid,
			})),
		];
		let run = 0;
		for (const processors of [1, 2]) {
			const balancer = await startBalancer({
				port: balancerPort,
				tls: context.tls,
				upstreamPorts: topology.webhookProcessors
					.slice(0, processors)
					.map((processor) => processor.port),
			});
			try {
				const setting = `queue, ${processors} webhook processor${processors > 1 ? 's' : ''}`;
				for (const kind of context.settings.queueReceivers) {
					// The balancer's log holds the earlier runs' requests too: each run takes its own.
					const earlier = (await balancer.requests()).length;
					const target: BurstTarget = {
						setting,
						n8n: topology.main,
						processes,
						databaseBytes: async () =>
							Number(await topology.services.sql('SELECT pg_database_size(current_database())')),
						routes: async () => (await balancer.requests()).slice(earlier),
					};
					runs.push(
						await burstInto(
							kind,
							target,
							{
								sandbox: context.sandbox,
								credential,
								webhookBase: `${balancerUrl}webhook`,
								run: ++run,
							},
							context.settings.queueBurst,
						),
					);
				}
			} finally {
				await balancer.stop();
			}
		}
	} finally {
		for (const member of [...topology.workers, ...topology.webhookProcessors])
			await keepLog(member.logFile, `f-queue-${member.name}`);
		await keepLog(topology.main.logFile, 'f-queue-main');
		await topology.stop();
	}
	return runs;
}
