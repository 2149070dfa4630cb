import { campaignLocator } from '../locators';
import { readOne } from '../requests';
import type { Operation } from '../types';

export const get: Operation = {
	option: {
		name: 'Get',
		value: 'get',
		action: 'Get a campaign',
		description: 'Retrieve one campaign by ID',
	},
	toolDescription:
		"Get one campaign from Svc by its ID. Pass Campaign: the campaign's ID, e.g. cmp_0001. Returns id, name, status and updated_at.",
	properties: [campaignLocator],
	async execute(op) {
		return await readOne(op, 'getCampaign', 'campaign_id', 'campaign');
	},
};
