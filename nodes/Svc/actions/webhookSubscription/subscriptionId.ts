import type { INodeProperties } from 'n8n-workflow';

import { asText } from '../../shared/text';
import { userError } from '../../transport';
import type { OperationContext } from '../types';

export const subscriptionIdProperty: INodeProperties = {
	displayName: 'Subscription ID',
	name: 'subscriptionId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. sub_1a2b3c',
};

export function subscriptionId(op: OperationContext): string {
	const id = asText(op.ctx.getNodeParameter('subscriptionId', op.itemIndex, '')).trim();
	if (id === '') {
		throw userError(op.ctx.getNode(), 'Enter the ID of the webhook subscription', { itemIndex: op.itemIndex });
	}
	return id;
}
