import { campaignLocator } from '../locators';
import { readOne } from '../requests';
import type { Operation } from '../types';

export const get: Operation = {
	option: { name: 'Get', value: 'get', action: 'Get a campaign', description: 'Retrieve one campaign by ID' },
	properties: [campaignLocator],
	async execute(op) {
		return await readOne(op, 'getCampaign', 'campaign_id', 'campaign');
	},
};
