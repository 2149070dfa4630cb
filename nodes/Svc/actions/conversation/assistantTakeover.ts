import type { IDataObject } from 'n8n-workflow';

import type { TakeoverResult } from '../../contract';
import { leadLocator, locatorValue } from '../locators';
import { idempotencyKeyOption, sendDuringEvaluationsOption } from '../parameters';
import type { Operation } from '../types';

export const assistantTakeover: Operation = {
	option: {
		name: 'Hand to Assistant',
		value: 'assistantTakeover',
		action: 'Hand a lead to the assistant',
		description:
			'Let the assistant take over the conversation with a lead. Side effect: the assistant may greet the lead right away; the service decides whether it does.',
	},
	toolDescription:
		"Hand a lead's conversation to the Svc assistant. Side effect: the assistant may send the lead a greeting message right away. Pass Lead: the lead's ID, e.g. lead_0001, and optionally Note: a sentence or two of context for the assistant. Returns lead_id, status (assistant_active) and greeting_sent (true or false).",
	properties: [
		leadLocator,
		{
			displayName: 'Note',
			name: 'note',
			type: 'string',
			typeOptions: { rows: 2 },
			default: '',
			description:
				'Context for the assistant in a sentence or two, e.g. "Asked about pricing for 20 seats; wants a call this week"',
		},
	],
	options: [sendDuringEvaluationsOption, idempotencyKeyOption],
	writes: true,
	messagesLeads: true,
	async execute(op) {
		const leadId = locatorValue(op, 'lead');
		const note = op.parameter<string>('note', '').trim();
		const body: IDataObject = note === '' ? {} : { note };
		const { body: result } = await op.client.request<TakeoverResult>('assistantTakeover', {
			pathParams: { lead_id: leadId },
			body,
			idempotencyKey: op.writeKey(`assistantTakeover:${leadId}`, body).value,
			itemIndex: op.itemIndex,
		});
		const greeting = result.greeting ?? { sent: false };
		if (!greeting.sent) {
			op.hint(
				`The assistant took over and sent the lead no greeting${greeting.reason ? ` (${greeting.reason})` : ''}`,
			);
		}
		return { ...result, greeting_sent: greeting.sent === true };
	},
};
