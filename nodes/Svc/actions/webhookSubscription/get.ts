import type { Subscription } from '../../contract';
import { subscriptionId, subscriptionIdProperty } from '../locators';
import type { Operation } from '../types';

export const get: Operation = {
	option: {
		name: 'Get',
		value: 'get',
		action: 'Get a webhook subscription',
		description: 'Retrieve one webhook subscription by ID',
	},
	toolDescription:
		'Get one webhook subscription from Svc by its ID. Pass Subscription ID, e.g. sub_1a2b3c. Returns id, url, events and created_at.',
	properties: [subscriptionIdProperty],
	async execute(op) {
		const { body } = await op.client.request<Subscription>('getSubscription', {
			pathParams: { subscription_id: subscriptionId(op) },
			itemIndex: op.itemIndex,
		});
		return { ...body };
	},
};
