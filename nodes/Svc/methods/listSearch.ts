import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { Campaign, EndpointName, Lead, ListPage, Thread } from '../contract';
import { LIST_LIMIT_MAX, LIST_QUERY } from '../contract';
import { runBounded } from '../shared/pool';
import { SvcClient } from '../transport';

/** A picker entry, and any more text the search box matches besides its name and value. */
interface Entry {
	item: INodeListSearchItems;
	alsoMatches?: string;
}

/** One page of a list endpoint as list-search results; the service's cursor is n8n's pagination token. */
async function searchPage<T extends object>(
	ctx: ILoadOptionsFunctions,
	endpoint: EndpointName,
	toEntries: (records: T[], client: SvcClient) => Entry[] | Promise<Entry[]>,
	filter: string | undefined,
	paginationToken: string | undefined,
): Promise<INodeListSearchResult> {
	const client = await SvcClient.connect(ctx);
	const qs: IDataObject = { [LIST_QUERY.limit]: LIST_LIMIT_MAX };
	if (paginationToken) qs[LIST_QUERY.cursor] = paginationToken;
	const { body } = await client.request<ListPage<T>>(endpoint, { qs });
	const needle = filter?.trim().toLowerCase() ?? '';
	const entries = await toEntries(body.data, client);
	const results = entries
		.filter(
			({ item, alsoMatches }) =>
				needle === '' ||
				`${item.name} ${item.value} ${alsoMatches ?? ''}`.toLowerCase().includes(needle),
		)
		.map(({ item }) => item);
	return { results, paginationToken: body.next_cursor ?? undefined };
}

function leadName(lead: Lead): string {
	const person = [lead.first_name, lead.last_name].filter(Boolean).join(' ');
	const contact = lead.email ?? lead.phone ?? lead.external_id ?? '';
	return person && contact ? `${person} (${contact})` : person || contact || lead.id;
}

export async function searchLeads(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchPage<Lead>(
		this,
		'listLeads',
		(leads) => leads.map((lead) => ({ item: { name: leadName(lead), value: lead.id } })),
		filter,
		paginationToken,
	);
}

/** Channel words people write differently from the API's lowercase ones; others are capitalised. */
const CHANNEL_NAMES: Record<string, string> = {
	sms: 'SMS',
	mms: 'MMS',
	rcs: 'RCS',
	email: 'Email',
	whatsapp: 'WhatsApp',
	imessage: 'iMessage',
	webchat: 'Web chat',
	linkedin: 'LinkedIn',
	tiktok: 'TikTok',
};

/** "assistant_active" -> "assistant active". */
function words(value: string): string {
	return value.replace(/[_-]+/g, ' ').trim();
}

function channelName(channel: string): string {
	const known = CHANNEL_NAMES[channel.toLowerCase()];
	if (known) return known;
	const text = words(channel);
	return text === '' ? 'Conversation' : text.charAt(0).toUpperCase() + text.slice(1);
}

/** Lead lookups at once for one picker page: quick for a full page, gentle on the rate limit. */
const LEAD_LOOKUP_CONCURRENCY = 8;

/**
 * The name of each distinct lead, one GET per lead. A lead that cannot be read (404, a key
 * without leads:read, any other failure) keeps no name and the picker shows its ID: a label is
 * not worth failing the picker. A 403 is the key's scope, the same for every lead, so no further
 * lookup starts after one.
 */
async function leadNames(client: SvcClient, leadIds: string[]): Promise<Map<string, string>> {
	const names = new Map<string, string>();
	let denied = false;
	await runBounded(leadIds.length, LEAD_LOOKUP_CONCURRENCY, async (index) => {
		if (denied) return;
		const leadId = leadIds[index];
		try {
			const { body } = await client.request<Lead>('getLead', { pathParams: { lead_id: leadId } });
			if (body !== null && typeof body === 'object')
				names.set(leadId, leadName({ ...body, id: leadId }));
		} catch (error) {
			if (error instanceof NodeApiError && error.httpCode === '403') denied = true;
		}
	});
	return names;
}

async function threadEntries(threads: Thread[], client: SvcClient): Promise<Entry[]> {
	const leadIds = [
		...new Set(
			threads.map((thread) => thread.lead_id).filter((id) => typeof id === 'string' && id !== ''),
		),
	];
	const names = await leadNames(client, leadIds);
	return threads.map((thread) => {
		const lead = thread.lead_id ? (names.get(thread.lead_id) ?? thread.lead_id) : '';
		const status = typeof thread.status === 'string' ? words(thread.status) : '';
		const name = `${channelName(String(thread.channel ?? ''))}${lead ? ` with ${lead}` : ''}${status ? `, ${status}` : ''}`;
		// What the picker showed before (lead ID, the API's channel and status words) stays searchable.
		return {
			item: { name, value: thread.id },
			alsoMatches: `${thread.lead_id} ${thread.channel} ${thread.status}`,
		};
	});
}

export async function searchThreads(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchPage<Thread>(this, 'listThreads', threadEntries, filter, paginationToken);
}

export async function searchCampaigns(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchPage<Campaign>(
		this,
		'listCampaigns',
		(campaigns) =>
			// The status is searchable ("approved") but not in the name n8n saves with the choice,
			// where it would go stale once the campaign is sending.
			campaigns.map((campaign) => ({
				item: { name: campaign.name, value: campaign.id },
				alsoMatches: String(campaign.status ?? ''),
			})),
		filter,
		paginationToken,
	);
}
