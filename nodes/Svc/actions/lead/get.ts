import { leadLocator } from '../locators';
import { simplifyOption } from '../parameters';
import { readOne } from '../requests';
import { simplifyLead } from '../simplify';
import type { Operation } from '../types';
import { LEAD_TOOL_FIELDS } from './getAll';

export const get: Operation = {
	option: {
		name: 'Get',
		value: 'get',
		action: 'Get a lead',
		description: 'Retrieve one lead by ID',
	},
	toolDescription: `Get one lead from Svc by its ID. Pass Lead: the lead's ID, e.g. lead_0001 (a lead search by email returns it). Returns the lead: ${LEAD_TOOL_FIELDS}.`,
	properties: [leadLocator, ...simplifyOption],
	async execute(op) {
		const lead = await readOne(op, 'getLead', 'lead_id', 'lead');
		return op.parameter('simplify', false) ? simplifyLead(lead) : lead;
	},
};
