import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { Campaign, DispatchResult } from '../../contract';
import { APPROVED_CAMPAIGN_STATUSES, IDEMPOTENCY_WINDOW_HOURS } from '../../contract';
import { asText } from '../../shared/text';
import { userError } from '../../transport';
import { storedSetting } from '../itemParameters';
import { campaignLocator, locatorValue } from '../locators';
import { idempotencyKeyOption, sendDuringEvaluationsOption } from '../parameters';
import { personMustAllowText, plainOnly } from '../tool';
import type { Operation, OperationContext, WriteKey, WriteKeyScope } from '../types';

/** Accepts a list from an expression or a comma/space separated string. */
export function parseIdList(value: unknown): string[] {
	const parts = Array.isArray(value) ? value.map(asText) : asText(value).split(/[\s,]+/);
	return [...new Set(parts.map((part) => part.trim()).filter((part) => part !== ''))];
}

const AUDIENCE = 'audience';
const AUDIENCE_LABEL = 'Send To';
const LISTED_LEADS = 'listedLeads';
const WHOLE_AUDIENCE = 'wholeAudience';
const ALLOW_UNAPPROVED = 'allowUnapproved';
const ALLOW_UNAPPROVED_LABEL = 'Send Campaigns Not Approved';
const SEND_AGAIN = 'sendAgain';
const SEND_AGAIN_LABEL = 'Send Again';
/** "approved, active or sending": the statuses a person reads in the service's dashboard. */
const APPROVED_STATUS_TEXT = `${APPROVED_CAMPAIGN_STATUSES.slice(0, -1).join(', ')} or ${APPROVED_CAMPAIGN_STATUSES[APPROVED_CAMPAIGN_STATUSES.length - 1]}`;
const AUDIENCE_NAMES: Record<string, string> = {
	[LISTED_LEADS]: 'Listed Leads Only',
	[WHOLE_AUDIENCE]: 'The Whole Audience',
};

/**
 * Who receives the dispatch. A person's choice made in the node: neither a model nor input data
 * can widen a dispatch to the whole audience, so an expression is refused.
 */
const audienceProperty: INodeProperties = {
	displayName: AUDIENCE_LABEL,
	name: AUDIENCE,
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: AUDIENCE_NAMES[LISTED_LEADS],
			value: LISTED_LEADS,
			description: 'Only the leads listed below receive the campaign',
		},
		{
			name: AUDIENCE_NAMES[WHOLE_AUDIENCE],
			value: WHOLE_AUDIENCE,
			description: "Every lead in the campaign's audience receives it",
		},
	],
	default: LISTED_LEADS,
	description: 'Who receives the campaign. Set here by a person: an expression is not accepted.',
};

const allowUnapprovedOption: INodeProperties = {
	displayName: ALLOW_UNAPPROVED_LABEL,
	name: ALLOW_UNAPPROVED,
	type: 'boolean',
	noDataExpression: true,
	default: false,
	description: `Whether to dispatch a campaign whose status is not ${APPROVED_STATUS_TEXT} (e.g. a draft). Set here by a person: an expression counts as off.`,
};

const sendAgainOption: INodeProperties = {
	displayName: SEND_AGAIN_LABEL,
	name: SEND_AGAIN,
	type: 'boolean',
	noDataExpression: true,
	default: false,
	description: `Whether to send a campaign again to leads it was already dispatched to in the last ${IDEMPOTENCY_WINDOW_HOURS} hours. Off: running the same dispatch again (same campaign, same leads) sends nothing and returns the first dispatch, marked replayed. Set here by a person: an expression counts as off.`,
};

/** Who receives this item's dispatch: the whole audience, or the listed leads (never none). */
function audienceOf(op: OperationContext): { leadIds?: string[] } {
	const setting = storedSetting(op.ctx.getNode().parameters, AUDIENCE);
	const chosen =
		setting.kind === 'unset'
			? LISTED_LEADS
			: setting.kind === 'literal'
				? setting.value
				: undefined;
	// n8n stores an expression typed into this field without its "=": it arrives as an unknown literal.
	if (chosen !== LISTED_LEADS && chosen !== WHOLE_AUDIENCE) {
		throw userError(
			op.ctx.getNode(),
			`'${AUDIENCE_LABEL}' is not one of its choices, so nothing was sent`,
			{
				itemIndex: op.itemIndex,
				description: `Choose '${AUDIENCE_NAMES[LISTED_LEADS]}' or '${AUDIENCE_NAMES[WHOLE_AUDIENCE]}' in this node. Who receives a campaign is set by a person, not by an expression, input data or a model.`,
			},
		);
	}
	if (chosen === WHOLE_AUDIENCE) return {};
	// In one order, so the same leads make the same body and the same Idempotency-Key.
	const leadIds = parseIdList(op.parameter('leadIds', '')).sort();
	if (leadIds.length === 0) {
		throw userError(op.ctx.getNode(), 'No lead IDs were given, so nothing was sent', {
			itemIndex: op.itemIndex,
			description: `'${AUDIENCE_LABEL}' is '${AUDIENCE_NAMES[LISTED_LEADS]}': list the leads in Lead IDs (e.g. lead_0001, lead_0002), or choose '${AUDIENCE_NAMES[WHOLE_AUDIENCE]}' to send to every lead in the campaign's audience.`,
		});
	}
	return { leadIds };
}

/** Refuses a campaign no person approved, unless a person allowed that in the node. */
async function requireApproved(op: OperationContext, campaignId: string): Promise<void> {
	const allowed = storedSetting(op.ctx.getNode().parameters, `options.${ALLOW_UNAPPROVED}`);
	if (allowed.kind === 'literal' && allowed.value === true) return;
	const { body: campaign } = await op.client.request<Campaign>('getCampaign', {
		pathParams: { campaign_id: campaignId },
		itemIndex: op.itemIndex,
	});
	if (APPROVED_CAMPAIGN_STATUSES.includes(campaign.status)) return;
	throw userError(
		op.ctx.getNode(),
		`Campaign "${campaign.name}" (${campaign.id}) is ${campaign.status}, not approved, so nothing was sent`,
		{
			itemIndex: op.itemIndex,
			description: `Approve the campaign in the service's dashboard first. Dispatch sends only campaigns whose status is ${APPROVED_STATUS_TEXT}; to send others, a person switches on '${ALLOW_UNAPPROVED_LABEL}' in this node's options.`,
		},
	);
}

export const dispatch: Operation = {
	option: {
		name: 'Dispatch',
		value: 'dispatch',
		action: 'Dispatch a campaign',
		description: `Send a campaign whose status is ${APPROVED_STATUS_TEXT} now, to listed leads or its whole audience; any other status (e.g. draft) is refused unless a person switches on '${ALLOW_UNAPPROVED_LABEL}' in the options. Side effect: the service sends messages to real leads. Needs the campaigns:read and campaigns:danger scopes and the confirmation switched on.`,
	},
	toolDescription: `Dispatch a Svc campaign now if its status is ${APPROVED_STATUS_TEXT} (any other is refused): the service sends its messages to real leads, and this cannot be undone. ${personMustAllowText('sends nothing')} Pass Campaign: its ID, e.g. cmp_0001, and Lead IDs: the leads to send to, e.g. lead_0001, lead_0002 (unless a person chose the whole audience). Returns campaign_id, dispatch_id, status, sent_to, lead_ids, and replayed: true if the same dispatch was sent in the last ${IDEMPOTENCY_WINDOW_HOURS} hours and nothing was sent again.`,
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
				description:
					"Whether to really dispatch: the service sends the campaign's messages to leads. The node refuses to dispatch while this is off.",
			},
		]),
		audienceProperty,
		{
			displayName: 'Lead IDs',
			name: 'leadIds',
			type: 'string',
			default: '',
			required: true,
			displayOptions: { show: { [AUDIENCE]: [LISTED_LEADS] } },
			placeholder: 'e.g. lead_0001, lead_0002',
			description:
				'The leads that receive the campaign: their IDs, comma-separated, e.g. lead_0001, lead_0002',
		},
	],
	options: [
		allowUnapprovedOption,
		sendAgainOption,
		sendDuringEvaluationsOption,
		idempotencyKeyOption,
	],
	writes: true,
	messagesLeads: true,
	async execute(op) {
		const campaignId = locatorValue(op, 'campaign');
		// As a tool the router already required "Allow Use by AI", the person's confirmation.
		if (!op.asTool && op.parameter<unknown>('confirmDispatch', false) !== true) {
			throw userError(op.ctx.getNode(), 'Dispatch was not confirmed, so nothing was sent', {
				itemIndex: op.itemIndex,
				description:
					'Dispatching sends real messages. Switch on "I Understand This Sends Messages" in this node to allow it.',
			});
		}
		const { leadIds } = audienceOf(op);
		await requireApproved(op, campaignId);
		const body: IDataObject = leadIds ? { lead_ids: leadIds } : {};
		// Unless a person switched on Send Again, the key follows the campaign and its leads alone,
		// so an accidental second run (another Execute step, a re-run workflow, a model calling
		// twice) is answered with the first dispatch instead of messaging the leads again.
		const sendAgain = storedSetting(op.ctx.getNode().parameters, `options.${SEND_AGAIN}`);
		const scope: WriteKeyScope =
			sendAgain.kind === 'literal' && sendAgain.value === true ? 'run' : 'content';
		const key = op.writeKey(`dispatchCampaign:${campaignId}`, body, scope);
		const { body: result, replayed } = await op.client.request<DispatchResult>('dispatchCampaign', {
			pathParams: { campaign_id: campaignId },
			body,
			idempotencyKey: key.value,
			itemIndex: op.itemIndex,
		});
		if (replayed) op.hint(replayedHint(key));
		return {
			...result,
			sent_to: leadIds ? 'listed_leads' : 'whole_audience',
			...(leadIds ? { lead_ids: leadIds } : {}),
			replayed,
		};
	},
};

function replayedHint(key: WriteKey): string {
	if (key.from !== 'content')
		return 'Replayed: the service had already applied this dispatch (same Idempotency-Key), so nothing was sent again.';
	return `Already sent: this campaign was dispatched to the same leads in the last ${IDEMPOTENCY_WINDOW_HOURS} hours, so nothing was sent again (replayed is true, with the first dispatch's ID). To send it again on purpose, switch on '${SEND_AGAIN_LABEL}' in this node's options.`;
}
