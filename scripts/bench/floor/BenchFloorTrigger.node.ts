/* eslint-disable @n8n/community-nodes/icon-validation, @n8n/community-nodes/require-node-description-fields, @n8n/community-nodes/webhook-lifecycle-complete -- a fixture loaded only by tests or benchmarks, never published */
import type {
	IWebhookFunctions,
	IWebhookResponseData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

/**
 * Bench-only fixture, never shipped (outside `nodes/`, like BenchFloor): the floor for the Svc
 * Trigger in (f). A community trigger with a webhook that does what no such trigger can skip and
 * nothing else: it answers 200 the way the Svc Trigger does (before the execution starts) and emits
 * the body as one item. No signature check, no de-duplication, no static data. n8n treats it as it
 * treats every community trigger, so the gap between it and the Svc Trigger is the package's own.
 */
export class BenchFloorTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bench Floor Trigger',
		name: 'benchFloorTrigger',
		group: ['trigger'],
		// Not 1: n8n evaluates an expression on every request to a start node at version 1 (its
		// Webhook node's old binary option), which any trigger avoids by another version, as the Svc
		// Trigger 1.1 does.
		version: 2,
		description: "Benchmark fixture: starts the workflow with each delivery's body, unchecked",
		defaults: { name: 'Bench Floor Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		webhooks: [
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' },
		],
		properties: [],
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const body = this.getBodyData();
		this.getResponseObject().status(200).json({ received: true });
		return await Promise.resolve({ noWebhookResponse: true, workflowData: [[{ json: body }]] });
	}
}
