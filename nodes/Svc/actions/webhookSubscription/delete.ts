import { subscriptionId, subscriptionIdProperty } from '../locators';
import { personMustAllowText } from '../tool';
import type { Operation } from '../types';

/** The value is "delete", a reserved word, so the export says what it deletes. */
export const deleteSubscription: Operation = {
	option: {
		name: 'Delete',
		value: 'delete',
		action: 'Delete a webhook subscription',
		description: "Stop the service from sending events to a subscription's URL",
	},
	toolDescription: `Delete a webhook subscription in Svc: the service stops sending events to its URL. ${personMustAllowText('deletes nothing')} Pass Subscription ID, e.g. sub_1a2b3c. Returns id and deleted: true.`,
	needsPersonAsTool: true,
	properties: [subscriptionIdProperty],
	async execute(op) {
		const id = subscriptionId(op);
		await op.client.request('deleteSubscription', {
			pathParams: { subscription_id: id },
			itemIndex: op.itemIndex,
		});
		return { id, deleted: true };
	},
};
