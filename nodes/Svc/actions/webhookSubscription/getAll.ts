import { returnAllAndLimit } from '../parameters';
import { readList } from '../requests';
import { TOOL_LIMIT_TEXT } from '../tool';
import type { Operation } from '../types';

export const getAll: Operation = {
	option: {
		name: 'Get Many',
		value: 'getAll',
		action: 'Get many webhook subscriptions',
		description: 'List webhook subscriptions',
	},
	toolDescription: `List the webhook subscriptions in Svc: the https URLs the service sends events to. ${TOOL_LIMIT_TEXT} Returns subscriptions, each with id, url, events and created_at.`,
	properties: returnAllAndLimit,
	async execute(op) {
		return await readList(op, 'listSubscriptions');
	},
};
