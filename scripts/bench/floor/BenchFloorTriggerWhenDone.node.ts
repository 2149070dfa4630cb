import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { BenchFloorTrigger } from './BenchFloorTrigger.node.ts';

/**
 * Bench-only fixture, never shipped: the floor trigger, answered by n8n when the execution it
 * started has ended ("lastNode") instead of at once. The answer waits for n8n, so the sender never
 * gets ahead of what n8n can run: the rate a community trigger can keep up on this n8n.
 */
export class BenchFloorTriggerWhenDone extends BenchFloorTrigger {
	constructor() {
		super();
		this.description = {
			...this.description,
			displayName: 'Bench Floor Trigger (answers when done)',
			name: 'benchFloorTriggerWhenDone',
			webhooks: [
				{ name: 'default', httpMethod: 'POST', responseMode: 'lastNode', path: 'webhook' },
			],
		};
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await Promise.resolve({ workflowData: [[{ json: this.getBodyData() }]] });
	}
}
