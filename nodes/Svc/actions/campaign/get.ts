import type { Campaign } from '../../contract';
import { locatorValue, resourceLocator } from '../common';
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
		const campaignId = locatorValue(op, 'campaignId', 'campaign');
		const { body } = await op.client.request<Campaign>('getCampaign', { pathParams: { campaign_id: campaignId }, itemIndex: op.itemIndex });
		return { ...body };
	},
};
