import type { Resource } from '../types';
import { create } from './create';
import { deleteSubscription } from './delete';
import { get } from './get';
import { getMany } from './getMany';

export const webhookSubscription: Resource = {
	option: { name: 'Webhook Subscription', value: 'webhookSubscription' },
	operations: [create, get, getMany, deleteSubscription],
};
