import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { Consent, Lead, LeadWritableField } from '../../contract';
import {
	CONSENT_FIELD,
	CONSENT_STATUSES,
	LEAD_MATCH_ORDER,
	LEAD_READ_ONLY_FIELDS,
	LEAD_WRITABLE_FIELDS,
} from '../../contract';
import { asText } from '../../shared/text';
import { userError } from '../../transport';
import { idempotencyKeyOption, nonEmpty } from '../common';
import type { Operation, OperationContext } from '../types';

const CONSENT_DETAIL_FIELDS = ['channel', 'source', 'recorded_at'] as const;

const properties: INodeProperties[] = [
	{
		displayName: 'Input Mode',
		name: 'inputMode',
		type: 'options',
		noDataExpression: true,
		default: 'defineBelow',
		options: [
			{ name: 'Define Below', value: 'defineBelow', description: 'Set each lead field in this node' },
			{
				name: 'Map Automatically',
				value: 'mapAutomatically',
				description: 'Use each input item as the lead: known fields by name, consent columns, everything else into custom fields',
			},
		],
	},
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
		description: 'Email of the lead. The service matches an existing lead by External ID, else Email, else Phone; one of them is needed.',
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
			{ displayName: 'External ID', name: 'external_id', type: 'string', default: '', description: 'ID of the lead in your own system; matched first when updating' },
			{ displayName: 'First Name', name: 'first_name', type: 'string', default: '' },
			{ displayName: 'Last Name', name: 'last_name', type: 'string', default: '' },
			{ displayName: 'Phone', name: 'phone', type: 'string', default: '', placeholder: '+14155550100' },
			{ displayName: 'Source', name: 'source', type: 'string', default: '', description: 'Where the lead came from, e.g. web-form' },
		],
	},
	{
		displayName: 'Consent',
		name: 'consentStatus',
		type: 'options',
		default: '',
		description: 'Consent to record in the lead\'s custom fields',
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
			{ displayName: 'Channel', name: 'channel', type: 'string', default: '', placeholder: 'e.g. email', description: 'Channel the consent covers' },
			{ displayName: 'Recorded At', name: 'recorded_at', type: 'dateTime', default: '', description: 'When the consent was given; leave empty to let the service stamp it' },
			{ displayName: 'Source', name: 'source', type: 'string', default: '', placeholder: 'e.g. signup-form', description: 'Where the consent was collected' },
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
};

/** "First Name", "firstName" and "first_name" all name the same field. */
function fieldKey(name: string): string {
	return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

const WRITABLE_BY_KEY = new Map<string, LeadWritableField>(LEAD_WRITABLE_FIELDS.map((field) => [fieldKey(field), field]));
const READ_ONLY_KEYS = new Set<string>(LEAD_READ_ONLY_FIELDS.map(fieldKey));
const CONSENT_COLUMN_KEYS = new Map<string, keyof Consent>([
	['consentstatus', 'status'],
	...CONSENT_DETAIL_FIELDS.map((field): [string, keyof Consent] => [fieldKey(`consent_${field}`), field]),
]);

function isBlank(value: unknown): boolean {
	return value === undefined || value === null || value === '';
}

function isPlainObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Map Automatically: the input item becomes the lead body. */
export function leadFromItem(json: IDataObject, ignore: Set<string>): { body: IDataObject; consent: Partial<Consent> } {
	const body: IDataObject = {};
	const customFields: IDataObject = {};
	let consent: Partial<Consent> = {};
	for (const [name, value] of Object.entries(json)) {
		const key = fieldKey(name);
		if (ignore.has(key) || isBlank(value) || READ_ONLY_KEYS.has(key)) continue;
		const field = WRITABLE_BY_KEY.get(key);
		const consentPart = CONSENT_COLUMN_KEYS.get(key);
		if (field) body[field] = typeof value === 'string' ? value.trim() : value;
		else if (consentPart) consent = { ...consent, [consentPart]: value };
		else if (key === fieldKey(CONSENT_FIELD) && isPlainObject(value)) consent = { ...consent, ...(value as Partial<Consent>) };
		else if (key === 'customfields' && isPlainObject(value)) Object.assign(customFields, value);
		else customFields[name] = value;
	}
	if (Object.keys(customFields).length > 0) body.custom_fields = customFields;
	return { body, consent };
}

function leadFromParameters(op: OperationContext): { body: IDataObject; consent: Partial<Consent> } {
	const { ctx, itemIndex } = op;
	const body = nonEmpty({
		email: (ctx.getNodeParameter('email', itemIndex, '') as string).trim(),
		...ctx.getNodeParameter('additionalFields', itemIndex, {}),
	});
	const customFields: IDataObject = {};
	const entries = (ctx.getNodeParameter('customFields.field', itemIndex, []) as Array<{ name: string; value: string }>) ?? [];
	for (const { name, value } of entries) {
		const trimmed = name.trim();
		if (trimmed === '') {
			throw userError(ctx.getNode(), 'A custom field has no name', { itemIndex, description: 'Give every custom field a name or remove it.' });
		}
		if (trimmed === CONSENT_FIELD) {
			throw userError(ctx.getNode(), `"${CONSENT_FIELD}" is set with the Consent parameter, not as a custom field`, { itemIndex });
		}
		customFields[trimmed] = value;
	}
	if (Object.keys(customFields).length > 0) body.custom_fields = customFields;
	const status = ctx.getNodeParameter('consentStatus', itemIndex, '') as string;
	const consent: Partial<Consent> =
		status === '' ? {} : { status: status as Consent['status'], ...nonEmpty(ctx.getNodeParameter('consentDetails', itemIndex, {}) as IDataObject) };
	return { body, consent };
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The checks the service would make, done first so the error names the field and the item. */
function checkLead(op: OperationContext, body: IDataObject, consent: Partial<Consent>): IDataObject {
	const fail = (message: string, description: string) => userError(op.ctx.getNode(), message, { itemIndex: op.itemIndex, description });
	if (!LEAD_MATCH_ORDER.some((field) => !isBlank(body[field]))) {
		throw fail('The lead needs an email, a phone or an external ID', 'The service matches leads on External ID, then Email, then Phone. Set at least one of them for this item.');
	}
	for (const field of LEAD_WRITABLE_FIELDS) {
		if (body[field] !== undefined && typeof body[field] !== 'string') body[field] = asText(body[field]);
	}
	if (typeof body.email === 'string' && !EMAIL_PATTERN.test(body.email)) {
		throw fail(`"${body.email}" is not a valid email address`, 'Fix the email of this item, or leave it empty and match by phone or external ID.');
	}
	if (Object.keys(consent).length === 0) return body;
	if (!CONSENT_STATUSES.includes(consent.status as Consent['status'])) {
		throw fail(
			'Consent needs a status of "granted" or "denied"',
			`This item gives consent details with status ${JSON.stringify(consent.status ?? null)}. Set the status, or remove the consent fields.`,
		);
	}
	if (consent.recorded_at !== undefined && Number.isNaN(Date.parse(String(consent.recorded_at)))) {
		throw fail('Consent "recorded_at" is not a date', 'Use an ISO 8601 date such as 2026-01-31T12:00:00Z.');
	}
	const customFields = isPlainObject(body.custom_fields) ? body.custom_fields : {};
	return { ...body, custom_fields: { ...customFields, [CONSENT_FIELD]: consent as IDataObject } };
}

export const upsert: Operation = {
	option: {
		name: 'Create or Update',
		value: 'upsert',
		action: 'Create or update a lead',
		description: 'Create a new record, or update the current one if it already exists (upsert)',
	},
	properties,
	options: [ignoredOption, idempotencyKeyOption],
	writes: true,
	async execute(op) {
		const mode = op.ctx.getNodeParameter('inputMode', op.itemIndex, 'defineBelow') as string;
		let lead: { body: IDataObject; consent: Partial<Consent> };
		if (mode === 'mapAutomatically') {
			const ignore = asText(op.ctx.getNodeParameter('options.ignoreFields', op.itemIndex, ''));
			const ignoreKeys = new Set(ignore.split(',').map((name) => fieldKey(name)).filter((key) => key !== ''));
			lead = leadFromItem(op.ctx.getInputData()[op.itemIndex].json, ignoreKeys);
		} else {
			lead = leadFromParameters(op);
		}
		const body = checkLead(op, lead.body, lead.consent);
		const response = await op.client.request<Lead>('upsertLead', {
			body,
			idempotencyKey: op.writeKey('upsertLead', body),
			itemIndex: op.itemIndex,
		});
		return { ...response.body, upsert_result: response.status === 201 ? 'created' : 'updated' };
	},
};
