import type { IDataObject } from 'n8n-workflow';

import { CONSENT_FIELD } from '../../contract';
import { pick, readOne, resourceLocator, simplifyOption } from '../common';
import type { Operation } from '../types';

export const leadLocator = resourceLocator({
	name: 'leadId',
	displayName: 'Lead',
	searchListMethod: 'searchLeads',
	what: 'lead',
	placeholder: 'e.g. lead_0001',
});

/** Identity, contact and consent status: what most workflows branch on. */
export function simplifyLead(lead: IDataObject): IDataObject {
	const customFields = (lead.custom_fields ?? {}) as IDataObject;
	const consent = (customFields[CONSENT_FIELD] ?? {}) as IDataObject;
	return { ...pick(lead, ['id', 'email', 'phone', 'first_name', 'last_name', 'external_id', 'source']), consent_status: consent.status ?? null };
}

export const get: Operation = {
	option: { name: 'Get', value: 'get', action: 'Get a lead', description: 'Retrieve one lead by ID' },
	properties: [leadLocator, simplifyOption],
	async execute(op) {
		const lead = await readOne(op, 'getLead', 'lead_id', { name: 'leadId', what: 'lead' });
		return op.ctx.getNodeParameter('simplify', op.itemIndex, false) ? simplifyLead(lead) : lead;
	},
};
