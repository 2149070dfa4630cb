/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * examples/receive-signed-events-without-this-package.json, set up as a user would: what n8n users
 * build to receive the service's signed events without this package (Webhook with the raw body →
 * Code checking the Standard Webhooks signature → Remove Duplicates → NoOp).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { WorkflowInput } from './n8n/api';
import { EXAMPLES_DIR } from './project';

export const PEER_EXAMPLE = 'receive-signed-events-without-this-package.json';
/** Its last node: an event that reached it got through the signature check and Remove Duplicates. */
export const PEER_END_NODE = 'Handle Event';
/** What the example's Code node holds in place of the subscription's secret. */
const SECRET_PLACEHOLDER = 'whsec_REPLACE_WITH_YOUR_SUBSCRIPTION_SECRET';

/** The example's Code node requires node:crypto, which n8n allows only when told so. */
export const PEER_EXAMPLE_ENV: Record<string, string> = { NODE_FUNCTION_ALLOW_BUILTIN: 'crypto' };

/** The example with its own webhook path and the subscription's secret pasted into the Code node. */
export function peerWorkflow(path: string, secret: string): WorkflowInput {
	const workflow = JSON.parse(
		readFileSync(join(EXAMPLES_DIR, PEER_EXAMPLE), 'utf8'),
	) as WorkflowInput;
	const webhook = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.webhook');
	const code = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.code');
	const jsCode = code?.parameters.jsCode;
	if (!webhook || !code || typeof jsCode !== 'string' || !jsCode.includes(SECRET_PLACEHOLDER))
		throw new Error(
			`examples/${PEER_EXAMPLE} no longer has its Webhook node and secret placeholder`,
		);
	webhook.parameters = { ...webhook.parameters, path };
	webhook.webhookId = randomUUID();
	code.parameters = { ...code.parameters, jsCode: jsCode.replace(SECRET_PLACEHOLDER, secret) };
	return workflow;
}
