import { leadLocator } from '../locators';
import { simplifyOption } from '../parameters';
import { readOne } from '../requests';
import { simplifyLead } from '../simplify';
import type { Operation } from '../types';

export const get: Operation = {
	option: { name: 'Get', value: 'get', action: 'Get a lead', description: 'Retrieve one lead by ID' },
	properties: [leadLocator, simplifyOption],
	async execute(op) {
		const lead = await readOne(op, 'getLead', 'lead_id', 'lead');
		return op.parameter('simplify', false) ? simplifyLead(lead) : lead;
	},
};
