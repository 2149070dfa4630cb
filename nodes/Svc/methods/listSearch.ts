import type { IDataObject, ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';

import type { Campaign, EndpointName, Lead, ListPage, Thread } from '../contract';
import { LIST_LIMIT_MAX, LIST_QUERY } from '../contract';
import { SvcClient } from '../transport';

/** One page of a list endpoint as list-search results; the service's cursor is n8n's pagination token. */
async function searchPage<T extends object>(
	ctx: ILoadOptionsFunctions,
	endpoint: EndpointName,
	toItem: (record: T) => INodeListSearchItems,
	filter: string | undefined,
	paginationToken: string | undefined,
): Promise<INodeListSearchResult> {
	const client = await SvcClient.connect(ctx);
	const qs: IDataObject = { [LIST_QUERY.limit]: LIST_LIMIT_MAX };
	if (paginationToken) qs[LIST_QUERY.cursor] = paginationToken;
	const { body } = await client.request<ListPage<T>>(endpoint, { qs });
	const needle = filter?.trim().toLowerCase() ?? '';
	const results = body.data
		.map(toItem)
		.filter((item) => needle === '' || `${item.name} ${item.value}`.toLowerCase().includes(needle));
	return { results, paginationToken: body.next_cursor ?? undefined };
}

function leadName(lead: Lead): string {
	const person = [lead.first_name, lead.last_name].filter(Boolean).join(' ');
	const contact = lead.email ?? lead.phone ?? lead.external_id ?? '';
	return person && contact ? `${person} (${contact})` : person || contact || lead.id;
}

export async function searchLeads(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string): Promise<INodeListSearchResult> {
	return await searchPage<Lead>(this, 'listLeads', (lead) => ({ name: leadName(lead), value: lead.id }), filter, paginationToken);
}

export async function searchThreads(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string): Promise<INodeListSearchResult> {
	return await searchPage<Thread>(
		this,
		'listThreads',
		(thread) => ({ name: `${thread.channel} thread of ${thread.lead_id} (${thread.status})`, value: thread.id }),
		filter,
		paginationToken,
	);
}

export async function searchCampaigns(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string): Promise<INodeListSearchResult> {
	return await searchPage<Campaign>(this, 'listCampaigns', (campaign) => ({ name: `${campaign.name} (${campaign.status})`, value: campaign.id }), filter, paginationToken);
}
