/* eslint-disable @n8n/community-nodes/icon-validation, @n8n/community-nodes/require-node-description-fields, @n8n/community-nodes/no-credential-reuse, @n8n/community-nodes/valid-credential-references -- a fixture loaded only by tests or benchmarks, never published */
import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

async function baseUrl(ctx: IHookFunctions): Promise<string> {
	return (await ctx.getCredentials<{ baseUrl: string }>('fixtureApi')).baseUrl;
}

/** Subscribes its webhook URL at the service and keeps the subscription id in static data. */
export class FixtureTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Fixture Trigger',
		name: 'fixtureTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Harness fixture',
		defaults: { name: 'Fixture Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'fixtureApi', required: true }],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'hook' }],
		properties: [
			{ displayName: 'Events', name: 'events', type: 'string', default: 'lead.created' },
		],
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const staticData = this.getWorkflowStaticData('node');
				if (typeof staticData.subscriptionId !== 'string') return false;
				const response = (await this.helpers.httpRequestWithAuthentication.call(
					this,
					'fixtureApi',
					{
						method: 'GET',
						url: `${await baseUrl(this)}/subscriptions/${staticData.subscriptionId}`,
						returnFullResponse: true,
						ignoreHttpStatusErrors: true,
					},
				)) as { statusCode: number };
				return response.statusCode === 200;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				const subscription = (await this.helpers.httpRequestWithAuthentication.call(
					this,
					'fixtureApi',
					{
						method: 'POST',
						url: `${await baseUrl(this)}/subscriptions`,
						body: {
							url: this.getNodeWebhookUrl('default'),
							events: this.getNodeParameter('events'),
							mode: this.getActivationMode(),
						},
						json: true,
					},
				)) as IDataObject;
				this.getWorkflowStaticData('node').subscriptionId = subscription.id;
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				const staticData = this.getWorkflowStaticData('node');
				await this.helpers.httpRequestWithAuthentication.call(this, 'fixtureApi', {
					method: 'DELETE',
					url: `${await baseUrl(this)}/subscriptions/${staticData.subscriptionId as string}`,
				});
				delete staticData.subscriptionId;
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const staticData = this.getWorkflowStaticData('node');
		const { token } = await this.getCredentials<{ token: string }>('fixtureApi');
		if (this.getHeaderData()['x-fixture-token'] !== token) {
			this.getResponseObject().status(401).json({ error: 'bad token' });
			return { noWebhookResponse: true };
		}
		const rawBody = (this.getRequestObject() as { rawBody?: Buffer }).rawBody;
		staticData.deliveries = ((staticData.deliveries as number | undefined) ?? 0) + 1;
		return {
			workflowData: [
				[{ json: { body: this.getBodyData(), raw: rawBody?.toString('utf8') ?? null } }],
			],
			webhookResponse: { received: true },
		};
	}
}
