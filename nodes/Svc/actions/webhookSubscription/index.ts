import type { Resource } from '../types';
import { create } from './create';
import { deleteSubscription } from './delete';
import { get } from './get';
import { getAll } from './getAll';

export const webhookSubscription: Resource = {
	option: { name: 'Webhook Subscription', value: 'webhookSubscription' },
	operations: [create, get, getAll, deleteSubscription],
};
