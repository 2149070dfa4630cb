import { readList, returnAllAndLimit } from '../common';
import type { Operation } from '../types';

export const getMany: Operation = {
	option: { name: 'Get Many', value: 'getAll', action: 'Get many webhook subscriptions', description: 'List webhook subscriptions' },
	properties: returnAllAndLimit,
	async execute(op) {
		return await readList(op, 'listSubscriptions');
	},
};
