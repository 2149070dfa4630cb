/** Lead mapping: an input item as a lead body (Map Automatically), and the checks every lead body passes before it is sent. */

import type { IDataObject } from 'n8n-workflow';

import type { Consent, LeadWritableField } from '../contract';
import {
	CONSENT_FIELD,
	CONSENT_STATUSES,
	LEAD_MATCH_ORDER,
	LEAD_READ_ONLY_FIELDS,
	LEAD_WRITABLE_FIELDS,
} from '../contract';
import { asText } from '../shared/text';
import { userError } from '../transport';
import type { OperationContext } from './types';

/** A lead body before its checks, and the consent to record in its custom fields. */
export interface LeadInput {
	body: IDataObject;
	consent: Partial<Consent>;
}

const CONSENT_DETAIL_FIELDS = ['channel', 'source', 'recorded_at'] as const;

/** "First Name", "firstName" and "first_name" all name the same field. */
function fieldKey(name: string): string {
	return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

const WRITABLE_BY_KEY = new Map<string, LeadWritableField>(
	LEAD_WRITABLE_FIELDS.map((field) => [fieldKey(field), field]),
);
const READ_ONLY_KEYS = new Set<string>(LEAD_READ_ONLY_FIELDS.map(fieldKey));
const CONSENT_COLUMN_KEYS = new Map<string, keyof Consent>([
	['consentstatus', 'status'],
	...CONSENT_DETAIL_FIELDS.map((field): [string, keyof Consent] => [
		fieldKey(`consent_${field}`),
		field,
	]),
]);

function isBlank(value: unknown): boolean {
	return value === undefined || value === null || value === '';
}

function isPlainObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Map Automatically: the input item becomes the lead body. */
export function leadFromItem(json: IDataObject, ignore: Set<string>): LeadInput {
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
		else if (key === fieldKey(CONSENT_FIELD) && isPlainObject(value))
			consent = { ...consent, ...(value as Partial<Consent>) };
		else if (key === 'customfields' && isPlainObject(value)) Object.assign(customFields, value);
		else customFields[name] = value;
	}
	if (Object.keys(customFields).length > 0) body.custom_fields = customFields;
	return { body, consent };
}

/** The keys of a comma-separated list of input fields to leave out, as leadFromItem matches them. */
export function ignoredFieldKeys(names: string): Set<string> {
	return new Set(
		names
			.split(',')
			.map((name) => fieldKey(name))
			.filter((key) => key !== ''),
	);
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The checks the service would make, done first so the error names the field and the item. */
export function checkLead(
	op: OperationContext,
	body: IDataObject,
	consent: Partial<Consent>,
): IDataObject {
	const fail = (message: string, description: string) =>
		userError(op.ctx.getNode(), message, { itemIndex: op.itemIndex, description });
	if (!LEAD_MATCH_ORDER.some((field) => !isBlank(body[field]))) {
		throw fail(
			'The lead needs an email, a phone or an external ID',
			'The service matches leads on External ID, then Email, then Phone. Set at least one of them for this item.',
		);
	}
	for (const field of LEAD_WRITABLE_FIELDS) {
		if (body[field] !== undefined && typeof body[field] !== 'string')
			body[field] = asText(body[field]);
	}
	if (typeof body.email === 'string' && !EMAIL_PATTERN.test(body.email)) {
		throw fail(
			`"${body.email}" is not a valid email address`,
			'Fix the email of this item, or leave it empty and match by phone or external ID.',
		);
	}
	if (Object.keys(consent).length === 0) return body;
	if (!CONSENT_STATUSES.includes(consent.status as Consent['status'])) {
		throw fail(
			'Consent needs a status of "granted" or "denied"',
			`This item gives consent details with status ${JSON.stringify(consent.status ?? null)}. Set the status, or remove the consent fields.`,
		);
	}
	if (consent.recorded_at !== undefined && Number.isNaN(Date.parse(String(consent.recorded_at)))) {
		throw fail(
			'Consent "recorded_at" is not a date',
			'Use an ISO 8601 date such as 2026-01-31T12:00:00Z.',
		);
	}
	const customFields = isPlainObject(body.custom_fields) ? body.custom_fields : {};
	return { ...body, custom_fields: { ...customFields, [CONSENT_FIELD]: consent as IDataObject } };
}
