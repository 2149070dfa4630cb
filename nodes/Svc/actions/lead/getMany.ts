import { nonEmpty, readList, returnAllAndLimit, simplifyOption } from '../common';
import { simplifyLead } from './get';
import type { Operation } from '../types';

export const getMany: Operation = {
	option: { name: 'Get Many', value: 'getAll', action: 'Get many leads', description: 'List leads, optionally filtered' },
	properties: [
		...returnAllAndLimit,
		simplifyOption,
		{
			displayName: 'Filters',
			name: 'filters',
			type: 'collection',
			placeholder: 'Add Filter',
			default: {},
			options: [
				{ displayName: 'Email', name: 'email', type: 'string', placeholder: 'name@email.com', default: '', description: 'Only the lead with this email' },
				{ displayName: 'External ID', name: 'external_id', type: 'string', default: '', description: 'Only the lead with this ID from your own system' },
				{ displayName: 'Source', name: 'source', type: 'string', default: '', description: 'Only leads from this source, e.g. web-form' },
			],
		},
	],
	async execute(op) {
		const filters = nonEmpty(op.ctx.getNodeParameter('filters', op.itemIndex, {}));
		const leads = await readList(op, 'listLeads', { qs: filters });
		return op.ctx.getNodeParameter('simplify', op.itemIndex, false) ? leads.map(simplifyLead) : leads;
	},
};
