/** The parameters that name the one record an operation acts on, and reading the ID they hold. */

import type { INodeProperties } from 'n8n-workflow';

import { DASHBOARD_PATHS } from '../contract';
import { asText } from '../shared/text';
import { userError } from '../transport';
import type { OperationContext } from './types';

/** The records a resource locator picks: each has a dashboard page whose URL may be pasted. */
export type LocatedRecord = keyof typeof DASHBOARD_PATHS;

const LOCATORS: Record<
	LocatedRecord,
	{
		name: string;
		displayName: string;
		searchListMethod: string;
		placeholder: string;
		description: string;
	}
> = {
	lead: {
		name: 'leadId',
		displayName: 'Lead',
		searchListMethod: 'searchLeads',
		placeholder: 'e.g. lead_0001',
		description:
			'The lead: pick it, or give its ID such as lead_0001 (what Get Many leads returns as ID) or its dashboard URL',
	},
	thread: {
		name: 'threadId',
		displayName: 'Thread',
		searchListMethod: 'searchThreads',
		placeholder: 'e.g. thr_0001',
		description:
			'The conversation thread: pick it, or give its ID such as thr_0001 (what Get Many Threads returns as ID) or its dashboard URL',
	},
	campaign: {
		name: 'campaignId',
		displayName: 'Campaign',
		searchListMethod: 'searchCampaigns',
		placeholder: 'e.g. cmp_0001',
		description:
			'The campaign: pick it, or give its ID such as cmp_0001 (what Get Many campaigns returns as ID) or its dashboard URL',
	},
};

const ID_PATTERN = '^[^\\s/?#]+$';

/** A resource locator: pick from a searchable list, give the ID, or paste the dashboard page's URL. */
function resourceLocator(what: LocatedRecord): INodeProperties {
	const { name, displayName, searchListMethod, placeholder, description } = LOCATORS[what];
	const urlPattern = `https?://[^/]+/(?:.*/)?${DASHBOARD_PATHS[what]}/([^\\s/?#]+)(?:[/?#].*)?`;
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod, searchable: true, searchFilterRequired: false },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder,
				validation: [
					{
						type: 'regex',
						properties: {
							regex: ID_PATTERN,
							errorMessage: `Not a valid ${what} ID (no spaces or slashes)`,
						},
					},
				],
			},
			{
				displayName: 'By URL',
				name: 'url',
				type: 'string',
				placeholder: `e.g. https://app.example.com/${DASHBOARD_PATHS[what]}/${placeholder.replace('e.g. ', '')}`,
				validation: [
					{
						type: 'regex',
						properties: {
							regex: urlPattern,
							errorMessage: `Not a URL of a ${what} page (…/${DASHBOARD_PATHS[what]}/ then its ID)`,
						},
					},
				],
				extractValue: { type: 'regex', regex: urlPattern },
			},
		],
	};
}

export const leadLocator = resourceLocator('lead');
export const threadLocator = resourceLocator('thread');
export const campaignLocator = resourceLocator('campaign');

/** The ID chosen in a resource locator (or given as a plain string by an expression). */
export function locatorValue(op: OperationContext, what: LocatedRecord): string {
	const value = asText(op.parameter(LOCATORS[what].name, '', { extractValue: true })).trim();
	if (value === '' || !new RegExp(ID_PATTERN).test(value)) {
		throw userError(op.ctx.getNode(), `Enter a valid ${what} ID`, {
			itemIndex: op.itemIndex,
			description:
				value === ''
					? `The ${what} parameter is empty for this item.`
					: `"${value}" contains spaces or slashes.`,
		});
	}
	return value;
}

/** Subscriptions have no dashboard page or list picker: their ID is typed in. */
export const subscriptionIdProperty: INodeProperties = {
	displayName: 'Subscription ID',
	name: 'subscriptionId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. sub_1a2b3c',
	description:
		'ID of the webhook subscription, such as sub_1a2b3c, as Create or Get Many returns it',
};

export function subscriptionId(op: OperationContext): string {
	const id = asText(op.parameter(subscriptionIdProperty.name, '')).trim();
	if (id === '') {
		throw userError(op.ctx.getNode(), 'Enter the ID of the webhook subscription', {
			itemIndex: op.itemIndex,
		});
	}
	return id;
}
