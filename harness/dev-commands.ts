/**
 * Commands `npm run dev`'s banner prints for a person to paste, built here so that the editor
 * suite runs the same strings in a shell, as printed.
 */

/** As a POSIX shell reads it back: as it is when nothing in it is special, else single-quoted. */
function quoted(text: string): string {
	return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The form example's Webhook path (examples/lead-capture-with-consent.json), under n8n's production webhook URL. */
export const FORM_EXAMPLE_PATH = 'svc-lead-capture';

/** The form example's sample post (its note shows the same body). */
export const FORM_EXAMPLE_BODY = {
	email: 'a@example.com',
	first_name: 'Ada',
	marketing_consent: 'yes',
};

/** curl posting `body` as JSON to `url`, trusting the local CA at `caPath` (n8n runs https with it). */
export function postJsonCommand(url: string, body: object, caPath: string): string {
	return `curl -s --cacert ${quoted(caPath)} -X POST ${quoted(url)} -H 'content-type: application/json' -d ${quoted(JSON.stringify(body))}`;
}

/**
 * scripts/mcp-call.ts against an MCP server: with a tool, calls it with `args`; without, lists the
 * tools. Run from the project folder, where `npm run dev` runs.
 */
export function mcpCallCommand(options: {
	url: string;
	token: string;
	caPath: string;
	tool?: string;
	args?: Record<string, unknown>;
}): string {
	const call =
		options.tool === undefined
			? ''
			: ` ${quoted(options.tool)} ${quoted(JSON.stringify(options.args ?? {}))}`;
	return `npx tsx scripts/mcp-call.ts --ca ${quoted(options.caPath)} ${quoted(options.url)} ${quoted(options.token)}${call}`;
}

/** n8n's MCP Server Trigger names each tool after its node, spaces as underscores ("Find Lead" → "Find_Lead"). */
export const mcpToolName = (nodeName: string): string => nodeName.replace(/ /g, '_');
