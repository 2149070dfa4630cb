import { subscriptionId, subscriptionIdProperty } from '../locators';
import type { Operation } from '../types';

/** The value is "delete", a reserved word, so the export says what it deletes. */
export const deleteSubscription: Operation = {
	option: { name: 'Delete', value: 'delete', action: 'Delete a webhook subscription', description: 'Stop the service from sending events to a subscription\'s URL' },
	properties: [subscriptionIdProperty],
	async execute(op) {
		const id = subscriptionId(op);
		await op.client.request('deleteSubscription', { pathParams: { subscription_id: id }, itemIndex: op.itemIndex });
		return { id, deleted: true };
	},
};
