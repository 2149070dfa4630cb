import type { Lead } from '../../contract';
import { locatorValue, resourceLocator } from '../common';
import type { Operation } from '../types';

export const leadLocator = resourceLocator({
	name: 'leadId',
	displayName: 'Lead',
	searchListMethod: 'searchLeads',
	what: 'lead',
	placeholder: 'e.g. lead_0001',
});

export const get: Operation = {
	option: { name: 'Get', value: 'get', action: 'Get a lead', description: 'Retrieve one lead by ID' },
	properties: [leadLocator],
	async execute(op) {
		const leadId = locatorValue(op, 'leadId', 'lead');
		const { body } = await op.client.request<Lead>('getLead', { pathParams: { lead_id: leadId }, itemIndex: op.itemIndex });
		return { ...body };
	},
};
