/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * `npm run dev`: the sandbox and a real n8n (with the editor) on this machine, this package
 * loaded, a "Svc sandbox" credential and the example workflows ready. Ctrl-C stops everything.
 * `npm run dev -- --queue`: the same n8n in queue mode (PostgreSQL, Redis, two workers, a
 * webhook processor), with the "Events database" credential the exactly-once example uses; that
 * example is imported only then (see harness/dev-examples.ts). The AI agent example's chat model
 * is a scripted model on this machine (harness/scripted-model.ts), with its "Scripted model
 * (local)" credential: it runs offline.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { DEMO_KEYS, startSandbox } from '../sandbox';
import { devExamples } from '../harness/dev-examples';
import { tryFirstSteps } from '../harness/dev-banner';
import {
	AGENT_EXAMPLE_FILE,
	qualifyLeadScript,
	SCRIPTED_MODEL_CREDENTIAL_ID,
	SCRIPTED_MODEL_CREDENTIAL_NAME,
	scriptedModelCredential,
} from '../harness/agent-example';
import { startScriptedModel } from '../harness/scripted-model';
import {
	FORM_EXAMPLE_BODY,
	FORM_EXAMPLE_PATH,
	mcpCallCommand,
	mcpToolName,
	postJsonCommand,
} from '../harness/dev-commands';
import { DEV_MCP_TOOLS, devMcpServerWorkflow, publishMcpServer } from '../harness/svc-tools';
import { EXAMPLES_DIR, PACKAGE_NODE_TYPES, PROJECT_DIR, TMP_DIR } from '../harness/project';
import type { N8nInstance } from '../harness/n8n/instance';
import type { WorkflowInput } from '../harness/n8n/api';
import { DEFAULT_OWNER_EMAIL, DEFAULT_OWNER_PASSWORD, startN8n } from '../harness/n8n/process';
import { importCredential, importWorkflow } from '../harness/n8n/api';
import { makeLocalCa } from '../harness/local-ca';
import { sandboxCredential } from '../harness/environment';
import { PEER_EXAMPLE_ENV } from '../harness/peer-example';
import type { QueueTopology } from '../harness/n8n/queue';
import { prepareEventsDatabase, startQueueTopology } from '../harness/n8n/queue';
import { ensureN8nRuntime } from '../harness/n8n-runtime/install';
import { runCommand } from '../harness/commands';

const DEV_DIR = join(TMP_DIR, 'dev');
const SANDBOX_PORT = Number(process.env.SVC_SANDBOX_PORT ?? 4010);
const N8N_PORT = Number(process.env.N8N_PORT ?? 5678);
const MODEL_PORT = Number(process.env.SVC_MODEL_PORT ?? 4011);
const QUEUE_MODE = process.argv.includes('--queue');
const MCP_PATH = 'svc';
/** The credential `npm run dev` adds for a demo key other than the first. */
const otherKeyCredentialName = (label: string | undefined): string =>
	`Svc sandbox: ${label ?? 'another key'}`;

async function main(): Promise<void> {
	console.log('Building the package…');
	const build = await runCommand('npm', ['run', 'build', '--silent'], {
		cwd: PROJECT_DIR,
		inherit: true,
	});
	if (build.code !== 0) throw new Error(`npm run build failed (exit ${build.code})`);

	const runtime = await ensureN8nRuntime('v2');
	// A fresh n8n each start: the sandbox is in-memory too, so both begin from the same demo state.
	await rm(DEV_DIR, { recursive: true, force: true });
	await mkdir(join(DEV_DIR, 'tls'), { recursive: true });
	const tls = await makeLocalCa(join(DEV_DIR, 'tls'));

	const sandbox = await startSandbox({
		port: SANDBOX_PORT,
		allowLoopbackWebhooks: true,
		trustedCa: tls.caPem,
	});
	console.log(`Sandbox on ${sandbox.url}`);
	const model = await startScriptedModel({ port: MODEL_PORT, turns: qualifyLeadScript() });
	console.log(`Scripted chat model on ${model.url}`);
	let topology: QueueTopology | undefined;
	let n8n: N8nInstance;
	const userFolder = join(DEV_DIR, 'n8n');
	if (QUEUE_MODE) {
		console.log(
			'Starting PostgreSQL, Redis and n8n in queue mode: main, 2 workers, 1 webhook processor (about 40 s)…',
		);
		topology = await startQueueTopology({
			version: runtime.version,
			packageDir: PROJECT_DIR,
			port: N8N_PORT,
			ui: true,
			userFolder,
			tls,
			workers: 2,
			webhookProcessors: 1,
			expectNodeTypes: PACKAGE_NODE_TYPES,
			env: PEER_EXAMPLE_ENV,
		});
		n8n = topology.main;
		await prepareEventsDatabase(topology);
	} else {
		console.log('Starting n8n (about 10 s)…');
		n8n = await startN8n({
			runtime,
			packageDir: PROJECT_DIR,
			protocol: 'https',
			port: N8N_PORT,
			tls,
			ui: true,
			logLevel: 'info',
			userFolder,
			expectNodeTypes: PACKAGE_NODE_TYPES,
			// The example without this package verifies signatures in a Code node.
			env: PEER_EXAMPLE_ENV,
		});
	}

	const [demoKey, ...otherKeys] = DEMO_KEYS;
	// The other demo keys first: n8n gives a new Svc node the newest credential of its type, and a
	// newcomer expects the one with every scope.
	for (const key of otherKeys)
		await importCredential(n8n, {
			...sandboxCredential(runtime.version, sandbox.url, key.key, true),
			name: otherKeyCredentialName(key.label),
		});
	const svcCredential = await importCredential(
		n8n,
		sandboxCredential(runtime.version, sandbox.url, demoKey.key),
	);
	await importCredential(n8n, scriptedModelCredential(model.url, SCRIPTED_MODEL_CREDENTIAL_ID));
	const examples = devExamples(QUEUE_MODE);
	const imported: string[] = [];
	for (const file of examples) {
		const workflow = JSON.parse(await readFile(join(EXAMPLES_DIR, file), 'utf8')) as WorkflowInput;
		const stored = await importWorkflow(n8n, workflow);
		imported.push(`${stored.name}  ${n8n.baseUrl}/workflow/${stored.id}`);
	}
	const queueOnly = devExamples(true).filter((file) => !examples.includes(file));
	// An MCP server over Svc tools, published with a fresh bearer token. In queue mode clients call
	// it at the webhook processor, and n8n runs each tool call on a worker.
	const mcpToken = randomBytes(24).toString('base64url');
	const bearer = await importCredential(n8n, {
		name: 'MCP bearer (local)',
		type: 'httpBearerAuth',
		data: { token: mcpToken },
	});
	const mcpServer = await importWorkflow(
		n8n,
		devMcpServerWorkflow(MCP_PATH, bearer, svcCredential),
	);
	await publishMcpServer(n8n, mcpServer, runtime.version);
	imported.push(`${mcpServer.name}  ${n8n.baseUrl}/workflow/${mcpServer.id}`);
	const mcpUrl = `${topology ? topology.webhookProcessors[0].baseUrl : n8n.baseUrl}/mcp/${MCP_PATH}`;
	// Each run needs a new email: an existing one updates its lead, and only a new lead sends lead.created.
	const createConsentingLead = `curl -s -X POST ${sandbox.url}/__admin/leads -H 'content-type: application/json' -d "{\\"email\\":\\"lead-$(date +%s)@example.com\\",\\"custom_fields\\":{\\"consent\\":{\\"status\\":\\"granted\\"}}}"`;
	const createHotLead = `curl -s -X POST ${sandbox.url}/__admin/leads -H 'content-type: application/json' -d "{\\"email\\":\\"hot-$(date +%s)@example.com\\",\\"source\\":\\"web-form\\",\\"custom_fields\\":{\\"score\\":90,\\"consent\\":{\\"status\\":\\"granted\\"}}}"`;
	const createLead = `curl -s -X POST ${sandbox.url}/__admin/leads -H 'content-type: application/json' -d "{\\"email\\":\\"lead-$(date +%s)@example.com\\"}"`;
	const mcpTools = DEV_MCP_TOOLS.map(mcpToolName);
	const findAda = mcpCallCommand({
		url: mcpUrl,
		token: mcpToken,
		caPath: tls.caCertPath,
		tool: mcpToolName('Find Lead'),
		args: { email: 'ada.lovelace@example.com' },
	});
	const postForm = postJsonCommand(
		`${topology ? topology.webhookProcessors[0].webhookBaseUrl : n8n.webhookBaseUrl}/${FORM_EXAMPLE_PATH}`,
		FORM_EXAMPLE_BODY,
		tls.caCertPath,
	);

	console.log(`
n8n with n8n-nodes-svc is running${topology ? ` in queue mode (webhooks at ${topology.webhookProcessors[0].webhookBaseUrl}, executions on ${topology.workers.length} workers)` : ''}.

  Open        ${n8n.baseUrl}   (a local certificate: accept it once in the browser, or trust ${tls.caCertPath})
  Log in      ${DEFAULT_OWNER_EMAIL} / ${DEFAULT_OWNER_PASSWORD}
  Credential  "Svc sandbox" → ${sandbox.url} with the sandbox demo key ${demoKey.key} (all scopes)
  Sandbox     ${sandbox.url}  (its admin API lists every control at ${sandbox.url}/__admin/)
  Chat model  "${SCRIPTED_MODEL_CREDENTIAL_NAME}" → ${model.url}, a scripted model for examples/${AGENT_EXAMPLE_FILE}
  MCP server  ${mcpUrl}  (published; header Authorization: Bearer ${mcpToken})
              tools: ${mcpTools.join(', ')}${topology ? '; each call runs on a worker' : ''}
  n8n log     ${n8n.logFile}

Example workflows (n8n 2.x opens on its Assistant page after you log in: the examples are under
Overview (Home) in the sidebar, or open them from these links):
  ${imported.join('\n  ')}${
		queueOnly.length > 0
			? `
  Not imported (they need PostgreSQL; start with npm run dev -- --queue): ${queueOnly.map((file) => `examples/${file}`).join(', ')}`
			: ''
	}

${tryFirstSteps({ createLead, createConsentingLead, createHotLead, findAda, postForm, caCertPath: tls.caCertPath })}

Other demo keys, each a credential already, to see scopes at work (new Svc nodes get "Svc sandbox"):
${otherKeys.map((key) => `  "${otherKeyCredentialName(key.label)}"  ${key.key}`).join('\n')}

Ctrl-C stops n8n, the sandbox and the scripted model.`);

	let stopping = false;
	const stop = async (): Promise<void> => {
		if (stopping) return;
		stopping = true;
		console.log('\nStopping…');
		if (topology) await topology.stop();
		else await n8n.stop({ keepUserFolder: true });
		await sandbox.close();
		await model.close();
		process.exit(0);
	};
	process.on('SIGINT', () => void stop());
	process.on('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exit(1);
});
