import { readList, returnAllAndLimit } from '../common';
import type { Operation } from '../types';

export const getManyThreads: Operation = {
	option: { name: 'Get Many Threads', value: 'getAllThreads', action: 'Get many threads', description: 'List conversation threads, optionally of one lead' },
	properties: [
		...returnAllAndLimit,
		{
			displayName: 'Filters',
			name: 'filters',
			type: 'collection',
			placeholder: 'Add Filter',
			default: {},
			options: [{ displayName: 'Lead ID', name: 'lead_id', type: 'string', default: '', description: 'Only the threads of this lead' }],
		},
	],
	async execute(op) {
		const filters = op.ctx.getNodeParameter('filters', op.itemIndex, {});
		const leadId = typeof filters.lead_id === 'string' ? filters.lead_id.trim() : '';
		return await readList(op, 'listThreads', { qs: leadId === '' ? {} : { lead_id: leadId } });
	},
};
