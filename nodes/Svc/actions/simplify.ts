/** The "Simplify" outputs: the fields most workflows use, in a fixed order. */

import type { IDataObject } from 'n8n-workflow';

import { CONSENT_FIELD, LEAD_WRITABLE_FIELDS } from '../contract';

/** The named fields of a record, in that order; the rest is left out. */
function pick(record: IDataObject, fields: readonly string[]): IDataObject {
	return Object.fromEntries(
		fields.filter((field) => field in record).map((field) => [field, record[field]]),
	);
}

/** Identity, contact and consent status: what most workflows branch on. */
export function simplifyLead(lead: IDataObject): IDataObject {
	const customFields = (lead.custom_fields ?? {}) as IDataObject;
	const consent = (customFields[CONSENT_FIELD] ?? {}) as IDataObject;
	return { ...pick(lead, ['id', ...LEAD_WRITABLE_FIELDS]), consent_status: consent.status ?? null };
}

export function simplifyMessage(message: IDataObject): IDataObject {
	return pick(message, ['id', 'direction', 'content', 'masked', 'created_at']);
}
