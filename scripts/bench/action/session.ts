/* eslint-disable @n8n/community-nodes/no-restricted-imports, no-console -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * The action-node scenarios' setting: one n8n over http with the package and the floor fixture,
 * its inspector on loopback (for a full GC before each run), a counting proxy and the raw client,
 * all against the shared sandbox. Runs the chosen scenarios in it, then stops everything.
 */
import { join } from 'node:path';

import type { Sandbox } from '../../../sandbox';
import { importCredential } from '../../../harness/n8n/api';
import { startN8n } from '../../../harness/n8n/process';
import type { N8nRuntime } from '../../../harness/n8n-runtime/install';
import { freePort } from '../../../harness/free-port';
import { SVC_NODE_TYPE, TMP_DIR } from '../../../harness/project';
import { buildFloorExtension, FLOOR_NODE_TYPE } from '../floor/build';
import type { Phases } from '../phases';
import { startCountingProxy } from '../proxy';
import { startRawClient } from '../raw';
import type { Settings } from '../settings';
import type { ActionBench, RunOutcome } from './runner';
import {
	scenarioA,
	scenarioB,
	scenarioC,
	scenarioK,
	type Figures,
	type KeepAlive,
	type RateFigures,
} from './scenarios';

export interface ActionResults {
	a?: Figures;
	b?: Figures;
	c?: RateFigures;
	k?: KeepAlive;
	runs: RunOutcome[];
	problems: string[];
}

export interface ActionContext {
	settings: Settings;
	runtime: N8nRuntime;
	tarball: string;
	sandbox: Sandbox;
	apiKey: string;
	phases: Phases;
}

export async function runActionScenarios(context: ActionContext): Promise<ActionResults> {
	const { settings, sandbox, phases } = context;
	const stops: Array<() => Promise<void>> = [];
	try {
		const proxy = await startCountingProxy(Number(new URL(sandbox.url).port));
		stops.unshift(async () => await proxy.close());
		const raw = await startRawClient();
		stops.unshift(async () => await raw.stop());
		const inspectPort = await freePort();
		const extensions = await buildFloorExtension(join(TMP_DIR, 'bench', 'floor-extension'));
		const n8n = await phases.run(
			'start n8n',
			async () =>
				await startN8n({
					runtime: context.runtime,
					packageTarball: context.tarball,
					protocol: 'http',
					logLevel: 'warn',
					expectNodeTypes: [SVC_NODE_TYPE, FLOOR_NODE_TYPE],
					// Loopback only; used for nothing but HeapProfiler.collectGarbage between runs.
					env: {
						NODE_OPTIONS: `--inspect=127.0.0.1:${inspectPort}`,
						N8N_CUSTOM_EXTENSIONS: extensions,
					},
				}),
		);
		stops.unshift(async () => await n8n.stop());
		const credential = (name: string, baseUrl: string) =>
			importCredential(n8n, { name, type: 'svcApi', data: { apiKey: context.apiKey, baseUrl } });
		const bench: ActionBench = {
			settings,
			n8n,
			sandbox,
			proxy,
			raw,
			apiKey: context.apiKey,
			inspectPort,
			credential: await credential('Svc bench', sandbox.url),
			proxyCredential: await credential('Svc bench via proxy', proxy.url),
			workflows: new Map(),
			rawJobs: 0,
			log: [],
			problems: [],
		};
		const chosen = settings.only;
		const results: ActionResults = { runs: bench.log, problems: bench.problems };
		if (chosen.has('a'))
			results.a = await phases.run(
				`(a) ${settings.nA} upserts, 0 ms latency, ${settings.repsA} repetition(s)`,
				async () => await scenarioA(bench),
			);
		if (chosen.has('b'))
			results.b = await phases.run(
				`(b) ${settings.nB} upserts, ${settings.latencyMs} ms latency, ${settings.repsB} repetition(s)`,
				async () => await scenarioB(bench),
			);
		if (chosen.has('c'))
			results.c = await phases.run(
				`(c) ${settings.nC} upserts at ${settings.ratePerSecond} req/s`,
				async () => await scenarioC(bench),
			);
		if (chosen.has('k'))
			results.k = await phases.run(
				'(k) keep-alive through the counting proxy',
				async () => await scenarioK(bench),
			);
		return results;
	} finally {
		for (const stop of stops)
			await stop().catch((error: unknown) => console.error(`stop failed: ${String(error)}`));
	}
}
