import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { Consent, Lead } from '../../contract';
import { CONSENT_FIELD } from '../../contract';
import { asText } from '../../shared/text';
import { userError } from '../../transport';
import type { LeadInput } from '../leadMapping';
import { checkLead, ignoredFieldKeys, leadFromItem } from '../leadMapping';
import { idempotencyKeyOption } from '../parameters';
import { nonEmpty } from '../requests';
import { plainOnly, toolOnly } from '../tool';
import type { Operation, OperationContext } from '../types';

const properties: INodeProperties[] = [
	// As an AI tool the lead comes from this node's fields, which a model may fill; never from the whole input item.
	...toolOnly([
		{
			displayName: 'Input Mode',
			name: 'inputMode',
			type: 'hidden',
			noDataExpression: true,
			default: 'defineBelow',
		},
	]),
	...plainOnly([
		{
			displayName: 'Input Mode',
			name: 'inputMode',
			type: 'options',
			noDataExpression: true,
			default: 'defineBelow',
			options: [
				{
					name: 'Define Below',
					value: 'defineBelow',
					description: 'Set each lead field in this node',
				},
				{
					name: 'Map Automatically',
					value: 'mapAutomatically',
					description:
						'Use each input item as the lead: known fields by name, consent columns, everything else into custom fields',
				},
			],
		},
	]),
	{
		displayName:
			'Fields are matched by name: email, phone, first_name, last_name, external_id, source (camelCase and spaced names also match). A consent object or consent_status, consent_channel, consent_source, consent_recorded_at columns become the consent record. A custom_fields object is merged; every other non-empty field goes into custom fields. The read-only ID, created_at and updated_at fields are ignored.',
		name: 'mapAutomaticallyNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { inputMode: ['mapAutomatically'] } },
	},
	{
		displayName: 'Email',
		name: 'email',
		type: 'string',
		placeholder: 'name@email.com',
		default: '',
		description:
			'Email address of the lead, e.g. jane@example.com. The service matches an existing lead by External ID, else Email, else Phone; one of them is needed.',
		displayOptions: { show: { inputMode: ['defineBelow'] } },
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show: { inputMode: ['defineBelow'] } },
		options: [
			{
				displayName: 'External ID',
				name: 'external_id',
				type: 'string',
				default: '',
				placeholder: 'e.g. crm-9001',
				description:
					'ID of the lead in your own system, e.g. crm-9001; matched first when updating',
			},
			{
				displayName: 'First Name',
				name: 'first_name',
				type: 'string',
				default: '',
				description: "The lead's given name, e.g. Jane",
			},
			{
				displayName: 'Last Name',
				name: 'last_name',
				type: 'string',
				default: '',
				description: "The lead's family name, e.g. Doe",
			},
			{
				displayName: 'Phone',
				name: 'phone',
				type: 'string',
				default: '',
				placeholder: '+14155550100',
				description: 'Phone number in international format, e.g. +14155550100',
			},
			{
				displayName: 'Source',
				name: 'source',
				type: 'string',
				default: '',
				description: 'Where the lead came from, e.g. web-form',
			},
		],
	},
	{
		displayName: 'Consent',
		name: 'consentStatus',
		type: 'options',
		default: '',
		description: "Consent to record in the lead's custom fields",
		displayOptions: { show: { inputMode: ['defineBelow'] } },
		options: [
			{ name: 'Do Not Record', value: '' },
			{ name: 'Granted', value: 'granted' },
			{ name: 'Denied', value: 'denied' },
		],
	},
	{
		displayName: 'Consent Details',
		name: 'consentDetails',
		type: 'collection',
		placeholder: 'Add Detail',
		default: {},
		displayOptions: { show: { inputMode: ['defineBelow'] }, hide: { consentStatus: [''] } },
		options: [
			{
				displayName: 'Channel',
				name: 'channel',
				type: 'string',
				default: '',
				placeholder: 'e.g. email',
				description: 'Channel the consent covers',
			},
			{
				displayName: 'Recorded At',
				name: 'recorded_at',
				type: 'dateTime',
				default: '',
				description:
					"When the consent was given, e.g. from your form's submission time. Leave empty and the service keeps the time it holds for the same consent, or stamps now for a new or changed one.",
			},
			{
				displayName: 'Source',
				name: 'source',
				type: 'string',
				default: '',
				placeholder: 'e.g. signup-form',
				description: 'Where the consent was collected',
			},
		],
	},
	{
		displayName: 'Custom Fields',
		name: 'customFields',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Custom Field',
		default: {},
		displayOptions: { show: { inputMode: ['defineBelow'] } },
		options: [
			{
				displayName: 'Field',
				name: 'field',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '' },
					{ displayName: 'Value', name: 'value', type: 'string', default: '' },
				],
			},
		],
	},
];

const ignoredOption: INodeProperties = {
	displayName: 'Fields to Ignore',
	name: 'ignoreFields',
	type: 'string',
	default: '',
	placeholder: 'e.g. row_number, notes',
	description: 'Comma-separated input fields that Map Automatically leaves out',
	displayOptions: { show: { '@tool': [false] } },
};

/** Define Below: the lead body from this node's parameters. */
function leadFromParameters(op: OperationContext): LeadInput {
	const { ctx, itemIndex } = op;
	const body = nonEmpty({
		email: op.parameter<string>('email', '').trim(),
		...op.parameter<IDataObject>('additionalFields', {}),
	});
	const customFields: IDataObject = {};
	const entries =
		op.parameter<Array<{ name: string; value: string }> | null>('customFields.field', []) ?? [];
	for (const { name, value } of entries) {
		const trimmed = name.trim();
		if (trimmed === '') {
			throw userError(ctx.getNode(), 'A custom field has no name', {
				itemIndex,
				description: 'Give every custom field a name or remove it.',
			});
		}
		if (trimmed === CONSENT_FIELD) {
			throw userError(
				ctx.getNode(),
				`"${CONSENT_FIELD}" is set with the Consent parameter, not as a custom field`,
				{ itemIndex },
			);
		}
		customFields[trimmed] = value;
	}
	if (Object.keys(customFields).length > 0) body.custom_fields = customFields;
	const status = op.parameter<string>('consentStatus', '');
	const consent: Partial<Consent> =
		status === ''
			? {}
			: {
					status: status as Consent['status'],
					...nonEmpty(op.parameter<IDataObject>('consentDetails', {})),
				};
	return { body, consent };
}

export const upsert: Operation = {
	option: {
		name: 'Create or Update',
		value: 'upsert',
		action: 'Create or update a lead',
		description: 'Create a new record, or update the current one if it already exists (upsert)',
	},
	toolDescription:
		'Create a lead in Svc, or update it when it already exists: the service matches by External ID, else Email, else Phone. Pass at least one of Email (e.g. jane@example.com), Phone (international format, e.g. +14155550100) or External ID; optionally First Name, Last Name and Source (e.g. web-form). Returns the lead (id, email, phone, first_name, last_name, external_id, source, custom_fields) and upsert_result: "created" or "updated".',
	properties,
	options: [ignoredOption, idempotencyKeyOption],
	writes: true,
	async execute(op) {
		const mode = op.parameter<string>('inputMode', 'defineBelow');
		let lead: LeadInput;
		if (mode === 'mapAutomatically' && op.asTool) {
			throw userError(
				op.ctx.getNode(),
				'Map Automatically is not available when this node runs as an AI tool',
				{
					itemIndex: op.itemIndex,
					description:
						'As a tool the lead comes from the fields of this node, which the model may fill. Set the fields in the node instead.',
				},
			);
		}
		if (mode === 'mapAutomatically') {
			const ignore = ignoredFieldKeys(asText(op.parameter('options.ignoreFields', '')));
			lead = leadFromItem(op.ctx.getInputData()[op.itemIndex].json, ignore);
		} else {
			lead = leadFromParameters(op);
		}
		const body = checkLead(op, lead.body, lead.consent);
		const response = await op.client.request<Lead>('upsertLead', {
			body,
			idempotencyKey: op.writeKey('upsertLead', body).value,
			itemIndex: op.itemIndex,
		});
		return { ...response.body, upsert_result: response.status === 201 ? 'created' : 'updated' };
	},
};
