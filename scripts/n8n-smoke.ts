/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/require-node-api-error, no-console -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * Proves the real-n8n tooling end to end with built-in nodes only (no package needed):
 *
 *   tsx scripts/n8n-smoke.ts [v2|v1] [--cold] [--keep]
 *
 * install runtime → start n8n over HTTPS → run a Manual Trigger workflow (REST and CLI) →
 * activate a Webhook workflow, call it over HTTPS trusting the local CA, see its execution,
 * deactivate → n8n's own credential test calling itself over HTTPS → stop. Prints timings.
 * v2 (default) is n8n 2.41.1 on Node 24, v1 is n8n 1.123.81 on the machine's Node 20.
 * --cold reinstalls the runtime first (5–6 min); --keep leaves the user folder for inspection.
 */
import { randomUUID } from 'node:crypto';
import { ensureN8nRuntime, type RuntimeVersion } from '../harness/n8n-runtime/install';
import {
	activate,
	deactivate,
	executeWorkflow,
	importCredential,
	importWorkflow,
	testCredential,
} from '../harness/n8n/api';
import { waitForExecutions } from '../harness/n8n/executions';
import { request } from '../harness/http';
import { startN8n } from '../harness/n8n/process';
import { type N8nInstance } from '../harness/n8n/instance';

const timings: Array<[string, number]> = [];

async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
	const started = performance.now();
	const result = await work();
	const ms = performance.now() - started;
	timings.push([label, ms]);
	console.log(`✓ ${label} (${Math.round(ms)} ms)`);
	return result;
}

function check(condition: boolean, message: string): asserts condition {
	if (!condition) throw new Error(`Check failed: ${message}`);
}

/** The JSON of the first item a node produced in an execution's data. */
function firstJson(
	execution: Awaited<ReturnType<typeof executeWorkflow>>,
	nodeName: string,
): unknown {
	return execution.data?.resultData.runData[nodeName]?.[0]?.data?.main[0]?.[0]?.json;
}

async function manualWorkflow(n8n: N8nInstance): Promise<void> {
	const workflow = await timed(
		'import manual workflow (public API)',
		async () =>
			await importWorkflow(n8n, {
				name: 'smoke: manual',
				nodes: [
					{ name: 'Manual', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, parameters: {} },
					{
						name: 'Set',
						type: 'n8n-nodes-base.set',
						typeVersion: 3.4,
						parameters: {
							assignments: {
								assignments: [
									{
										id: randomUUID(),
										name: 'greeting',
										type: 'string',
										value: '={{ "hello " + "n8n" }}',
									},
								],
							},
							options: {},
						},
					},
					{ name: 'NoOp', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} },
				],
				connections: {
					Manual: { main: [[{ node: 'Set', type: 'main', index: 0 }]] },
					Set: { main: [[{ node: 'NoOp', type: 'main', index: 0 }]] },
				},
			}),
	);

	const execution = await timed(
		'execute via REST /rest/workflows/:id/run (incl. waiting for the result)',
		async () => await executeWorkflow(n8n, workflow.id),
	);
	check(execution.status === 'success', `manual execution status ${execution.status}`);
	check(
		JSON.stringify(firstJson(execution, 'NoOp')) === JSON.stringify({ greeting: 'hello n8n' }),
		`NoOp output ${JSON.stringify(firstJson(execution, 'NoOp'))}`,
	);
	await timed('execute again via REST (warm)', async () => await executeWorkflow(n8n, workflow.id));

	const cli = await timed(
		'execute via CLI `n8n execute --id --rawOutput` (for comparison)',
		async () => await n8n.cli(['execute', `--id=${workflow.id}`, '--rawOutput']),
	);
	check(
		cli.code === 0 && cli.stdout.includes('hello n8n'),
		`CLI execute exit ${cli.code}: ${cli.stderr.slice(-500)}`,
	);
}

async function webhookWorkflow(n8n: N8nInstance): Promise<void> {
	const path = `smoke-${randomUUID().slice(0, 8)}`;
	const workflow = await importWorkflow(n8n, {
		name: 'smoke: webhook',
		nodes: [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				webhookId: randomUUID(),
				// "On received" answers the literal text `firstEntryJson` unless responseData is set.
				parameters: {
					httpMethod: 'POST',
					path,
					responseMode: 'onReceived',
					responseData: 'noData',
					options: {},
				},
			},
			{ name: 'NoOp', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} },
		],
		connections: { Webhook: { main: [[{ node: 'NoOp', type: 'main', index: 0 }]] } },
	});
	await timed(
		'activate webhook workflow (public API)',
		async () => await activate(n8n, workflow.id),
	);

	const url = `${n8n.webhookBaseUrl}/${path}`;
	// A plain client trusting only the local CA, as an outside sender would.
	const delivery = await timed(
		`POST ${url}`,
		async () => await request(url, { method: 'POST', body: { hello: 'webhook' }, ca: n8n.caPem }),
	);
	check(
		delivery.status === 200,
		`webhook answered ${delivery.status}: ${JSON.stringify(delivery.body)}`,
	);

	const [execution] = await timed(
		'wait for the webhook execution (public API)',
		async () => await waitForExecutions(n8n, workflow.id, 1, 10_000, { includeData: true }),
	);
	check(
		execution.status === 'success' && execution.mode === 'webhook',
		`webhook execution ${execution.status}/${execution.mode}`,
	);
	const received = firstJson(execution, 'NoOp') as { body?: unknown } | undefined;
	check(
		JSON.stringify(received?.body) === JSON.stringify({ hello: 'webhook' }),
		`webhook body ${JSON.stringify(received?.body)}`,
	);

	await timed(
		'deactivate webhook workflow (public API)',
		async () => await deactivate(n8n, workflow.id),
	);
	const after = await request(url, { method: 'POST', body: {}, ca: n8n.caPem });
	check(after.status === 404, `webhook after deactivation answered ${after.status}`);
}

async function credentialTest(n8n: N8nInstance): Promise<void> {
	// n8nApi's test calls GET <baseUrl>/credentials/schema/n8nApi: n8n calling itself over HTTPS proves it trusts the CA.
	const good = await importCredential(n8n, {
		name: 'smoke: n8n API',
		type: 'n8nApi',
		data: { apiKey: n8n.apiKey, baseUrl: `${n8n.baseUrl}/api/v1` },
	});
	const ok = await timed(
		'credential test, stored credential (REST, as the editor does)',
		async () => await testCredential(n8n, good.id),
	);
	check(ok.status === 'OK', `credential test: ${JSON.stringify(ok)}`);
	const bad = await timed(
		'credential test, unsaved data (temporary credential)',
		async () =>
			await testCredential(n8n, {
				type: 'n8nApi',
				data: { apiKey: 'wrong', baseUrl: `${n8n.baseUrl}/api/v1` },
			}),
	);
	check(bad.status === 'Error', `credential test with a wrong key: ${JSON.stringify(bad)}`);
}

async function main(argv: string[]): Promise<void> {
	const version: RuntimeVersion = argv.includes('v1') ? 'v1' : 'v2';
	const runtime = await timed(
		argv.includes('--cold')
			? `install ${version} runtime (cold, forced)`
			: `install ${version} runtime (first call)`,
		async () => await ensureN8nRuntime(version, { force: argv.includes('--cold') }),
	);
	await timed(
		'install runtime (warm)',
		async () => await ensureN8nRuntime(version, { verbose: false }),
	);

	const n8n = await timed(
		'start n8n over https until ready, logged in, API key made',
		async () => await startN8n({ runtime, protocol: 'https' }),
	);
	console.log(`  ${n8n.baseUrl}  user folder ${n8n.userFolder}  log ${n8n.logFile}`);
	try {
		await manualWorkflow(n8n);
		await webhookWorkflow(n8n);
		await credentialTest(n8n);
	} catch (error) {
		console.error(`--- n8n log tail ---\n${(await n8n.log()).split('\n').slice(-40).join('\n')}`);
		await n8n.stop({ keepUserFolder: true });
		console.error(`User folder kept: ${n8n.userFolder}`);
		throw error;
	}
	await timed('stop n8n', async () => await n8n.stop({ keepUserFolder: argv.includes('--keep') }));

	console.log('\nTimings');
	for (const [label, ms] of timings)
		console.log(`  ${String(Math.round(ms)).padStart(7)} ms  ${label}`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exitCode = 1;
});
