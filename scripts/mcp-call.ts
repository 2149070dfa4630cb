/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * An MCP client for the server `npm run dev` publishes, as its banner prints it:
 *
 *   npx tsx scripts/mcp-call.ts --ca <ca.pem> <url> <token>                   lists the tools
 *   npx tsx scripts/mcp-call.ts --ca <ca.pem> <url> <token> <tool> '<json>'   calls one
 *
 * It is the official MCP client (Streamable HTTP), trusting the local CA for this connection only.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

import { connectMcp, resultText } from '../harness/mcp-client';

const USAGE =
	"Usage: npx tsx scripts/mcp-call.ts [--ca <ca.pem>] <url> <token> [<tool> '<json arguments>']";

async function main(): Promise<void> {
	const { values, positionals } = parseArgs({
		options: { ca: { type: 'string' } },
		allowPositionals: true,
	});
	const [url, token, tool, json] = positionals;
	if (url === undefined || token === undefined || positionals.length > 4) throw new Error(USAGE);
	let args: Record<string, unknown> = {};
	if (json !== undefined) {
		const parsed: unknown = JSON.parse(json);
		if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
			throw new Error(
				`The tool's arguments must be a JSON object, e.g. '{"email":"a@example.com"}'`,
			);
		args = parsed as Record<string, unknown>;
	}
	const ca = values.ca === undefined ? undefined : await readFile(values.ca, 'utf8');
	const mcp = await connectMcp(url, { ca, token });
	try {
		if (tool === undefined) {
			for (const { name, description, inputSchema } of await mcp.listTools()) {
				const params = Object.keys(inputSchema.properties ?? {}).join(', ');
				console.log(`${name}(${params})\n  ${description ?? ''}`);
			}
			return;
		}
		const result = await mcp.callTool(tool, args);
		console.log(resultText(result));
		if (result.isError === true) process.exitCode = 1;
	} finally {
		await mcp.close();
	}
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exit(1);
});
