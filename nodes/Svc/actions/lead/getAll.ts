import { LEAD_LIST_FILTERS } from '../../contract';
import { listFilters, returnAllAndLimit, simplifyOption } from '../parameters';
import { nonEmpty, readList } from '../requests';
import { simplifyLead } from '../simplify';
import { TOOL_LIMIT_TEXT } from '../tool';
import type { Operation } from '../types';

/** The fields of a simplified lead, as the tool descriptions name them. */
export const LEAD_TOOL_FIELDS =
	'id, email, phone, first_name, last_name, external_id, source and consent_status (granted, denied or null)';

export const getAll: Operation = {
	option: {
		name: 'Get Many',
		value: 'getAll',
		action: 'Get many leads',
		description: 'List leads, optionally filtered',
	},
	toolDescription: `Search the leads in Svc. Narrow it with Email (the exact address, e.g. jane@example.com), External ID (the lead's ID in another system) or Source (e.g. web-form). ${TOOL_LIMIT_TEXT} Returns a list of leads, each with ${LEAD_TOOL_FIELDS}; an empty list when none match.`,
	properties: [
		...returnAllAndLimit,
		...simplifyOption,
		listFilters(LEAD_LIST_FILTERS, {
			email: {
				displayName: 'Email',
				placeholder: 'name@email.com',
				description: 'Only the lead with this exact email address, e.g. jane@example.com',
			},
			external_id: {
				displayName: 'External ID',
				description: 'Only the lead with this ID from your own system, e.g. crm-9001',
			},
			source: { displayName: 'Source', description: 'Only leads from this source, e.g. web-form' },
		}),
	],
	async execute(op) {
		const filters = nonEmpty(op.parameter('filters', {}));
		const leads = await readList(op, 'listLeads', { qs: filters });
		return op.parameter('simplify', false) ? leads.map(simplifyLead) : leads;
	},
};
