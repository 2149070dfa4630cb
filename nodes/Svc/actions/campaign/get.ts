import { readOne, resourceLocator } from '../common';
import type { Operation } from '../types';

export const campaignLocator = resourceLocator({
	name: 'campaignId',
	displayName: 'Campaign',
	searchListMethod: 'searchCampaigns',
	what: 'campaign',
	placeholder: 'e.g. cmp_0001',
});

export const get: Operation = {
	option: { name: 'Get', value: 'get', action: 'Get a campaign', description: 'Retrieve one campaign by ID' },
	properties: [campaignLocator],
	async execute(op) {
		return await readOne(op, 'getCampaign', 'campaign_id', { name: 'campaignId', what: 'campaign' });
	},
};
