import { LEAD_LIST_FILTERS } from '../../contract';
import { listFilters, returnAllAndLimit, simplifyOption } from '../parameters';
import { nonEmpty, readList } from '../requests';
import { simplifyLead } from '../simplify';
import type { Operation } from '../types';

export const getAll: Operation = {
	option: { name: 'Get Many', value: 'getAll', action: 'Get many leads', description: 'List leads, optionally filtered' },
	properties: [
		...returnAllAndLimit,
		simplifyOption,
		listFilters(LEAD_LIST_FILTERS, {
			email: { displayName: 'Email', placeholder: 'name@email.com', description: 'Only the lead with this email' },
			external_id: { displayName: 'External ID', description: 'Only the lead with this ID from your own system' },
			source: { displayName: 'Source', description: 'Only leads from this source, e.g. web-form' },
		}),
	],
	async execute(op) {
		const filters = nonEmpty(op.parameter('filters', {}));
		const leads = await readList(op, 'listLeads', { qs: filters });
		return op.parameter('simplify', false) ? leads.map(simplifyLead) : leads;
	},
};
