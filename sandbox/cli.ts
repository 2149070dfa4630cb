/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { DEMO_KEYS, startSandbox } from './index';

/** `tsx sandbox/cli.ts [--port 4010] [--allow-loopback-webhooks] [--trusted-ca path]` */
const DEFAULT_PORT = 4010;

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			port: { type: 'string', default: String(DEFAULT_PORT) },
			'allow-loopback-webhooks': { type: 'boolean', default: false },
			'trusted-ca': { type: 'string' },
		},
	});
	const port = Number(values.port);
	if (!Number.isInteger(port) || port < 0 || port > 65535)
		throw new Error(`--port must be a port number, got ${values.port}`);
	const trustedCaPath = values['trusted-ca'];
	const sandbox = await startSandbox({
		port,
		allowLoopbackWebhooks: values['allow-loopback-webhooks'],
		trustedCa: trustedCaPath === undefined ? undefined : readFileSync(trustedCaPath),
	});
	const lines = [
		`Sandbox listening on ${sandbox.url} (API under /v1, admin API under /__admin/)`,
		'',
		'Demo API keys (sandbox only):',
		...DEMO_KEYS.map(
			({ key, scopes, label }) => `  ${key}  ${label ?? ''}\n      ${scopes.join(' ')}`,
		),
		'',
		'Ctrl+C to stop.',
	];
	process.stdout.write(`${lines.join('\n')}\n`);
	const stop = (signal: NodeJS.Signals) => {
		process.stdout.write(`\n${signal}: stopping the sandbox\n`);
		sandbox.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
	process.exit(1);
});
