import type { IDataObject } from 'n8n-workflow';

import type { DispatchResult } from '../../contract';
import { asText } from '../../shared/text';
import { userError } from '../../transport';
import { campaignLocator, locatorValue } from '../locators';
import { idempotencyKeyOption } from '../parameters';
import { personMustAllowText, plainOnly } from '../tool';
import type { Operation } from '../types';

/** Accepts a list from an expression or a comma/space separated string. */
export function parseIdList(value: unknown): string[] {
	const parts = Array.isArray(value) ? value.map(asText) : asText(value).split(/[\s,]+/);
	return [...new Set(parts.map((part) => part.trim()).filter((part) => part !== ''))];
}

export const dispatch: Operation = {
	option: {
		name: 'Dispatch',
		value: 'dispatch',
		action: 'Dispatch a campaign',
		description:
			'Send an approved campaign now. Side effect: the service sends messages to real leads. Needs the campaigns:danger scope and the confirmation switched on.',
	},
	toolDescription: `Dispatch an approved Svc campaign now: the service sends its messages to real leads, and this cannot be undone. ${personMustAllowText('sends nothing')} Pass Campaign: the campaign's ID, e.g. cmp_0001, and optionally Lead IDs: a comma-separated list such as lead_0001, lead_0002 to send only to those leads (empty: the whole audience). Returns campaign_id, dispatch_id and status (queued).`,
	needsPersonAsTool: true,
	properties: [
		campaignLocator,
		// As an AI tool, "Allow Use by AI" is the person's confirmation: this switch is not shown there, and not read.
		...plainOnly([
			{
				displayName: 'I Understand This Sends Messages',
				name: 'confirmDispatch',
				type: 'boolean',
				default: false,
				description: 'Whether to really dispatch: the service sends the campaign\'s messages to leads. The node refuses to dispatch while this is off.',
			},
		]),
		{
			displayName: 'Lead IDs',
			name: 'leadIds',
			type: 'string',
			default: '',
			placeholder: 'e.g. lead_0001, lead_0002',
			description: 'Send only to these leads: their IDs, comma-separated, e.g. lead_0001, lead_0002. Leave empty to send to the campaign\'s whole audience.',
		},
	],
	options: [idempotencyKeyOption],
	writes: true,
	async execute(op) {
		const campaignId = locatorValue(op, 'campaign');
		// As a tool the router already required "Allow Use by AI", the person's confirmation.
		if (!op.asTool && op.parameter<unknown>('confirmDispatch', false) !== true) {
			throw userError(op.ctx.getNode(), 'Dispatch was not confirmed, so nothing was sent', {
				itemIndex: op.itemIndex,
				description: 'Dispatching sends real messages. Switch on "I Understand This Sends Messages" in this node to allow it.',
			});
		}
		const leadIds = parseIdList(op.parameter('leadIds', ''));
		const body: IDataObject = leadIds.length > 0 ? { lead_ids: leadIds } : {};
		const { body: result, replayed } = await op.client.request<DispatchResult>('dispatchCampaign', {
			pathParams: { campaign_id: campaignId },
			body,
			idempotencyKey: op.writeKey(`dispatchCampaign:${campaignId}`, body),
			itemIndex: op.itemIndex,
		});
		return { ...result, replayed };
	},
};
