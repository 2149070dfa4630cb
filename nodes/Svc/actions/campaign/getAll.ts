import { returnAllAndLimit } from '../parameters';
import { readList } from '../requests';
import type { Operation } from '../types';

export const getAll: Operation = {
	option: { name: 'Get Many', value: 'getAll', action: 'Get many campaigns', description: 'List campaigns' },
	properties: returnAllAndLimit,
	async execute(op) {
		return await readList(op, 'listCampaigns');
	},
};
