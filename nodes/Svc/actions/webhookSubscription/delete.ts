import type { Operation } from '../types';
import { subscriptionIdProperty, subscriptionId } from './subscriptionId';

export const deleteSubscription: Operation = {
	option: { name: 'Delete', value: 'delete', action: 'Delete a webhook subscription', description: 'Stop the service from sending events to a subscription\'s URL' },
	properties: [subscriptionIdProperty],
	async execute(op) {
		const id = subscriptionId(op);
		await op.client.request('deleteSubscription', { pathParams: { subscription_id: id }, itemIndex: op.itemIndex });
		return { id, deleted: true };
	},
};
