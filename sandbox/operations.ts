/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { randomBytes } from 'node:crypto';
import { BlockList, isIP } from 'node:net';

import type {
	Campaign,
	Consent,
	DispatchResult,
	EventEnvelope,
	Lead,
	LeadWritableField,
	Message,
	Subscription,
	TakeoverResult,
	Thread,
} from '../nodes/Svc/contract';
import {
	CONSENT_FIELD,
	CONSENT_STATUSES,
	EVENT_SIGNATURE,
	LEAD_MATCH_ORDER,
	LEAD_READ_ONLY_FIELDS,
	LEAD_WRITABLE_FIELDS,
	SUBSCRIPTION_URL_PROTOCOL,
} from '../nodes/Svc/contract';
import type { ApiError } from './errors';
import { badRequest, orNotFound, unprocessable } from './errors';
import { newId } from './ids';
import { isPlainObject } from './json';
import type { SandboxState } from './state';
import type { StoredSubscription } from './store';

/** The domain: what each write does to the store, which counters move and which events go out. */

const LEAD_INPUT_FIELDS = new Set<string>([...LEAD_WRITABLE_FIELDS, 'custom_fields']);
const READ_ONLY_FIELDS = new Set<string>(LEAD_READ_ONLY_FIELDS);
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function rejectUnknownFields(
	input: Record<string, unknown>,
	allowed: readonly string[],
	fail: (message: string) => ApiError,
): void {
	for (const name of Object.keys(input)) {
		if (!allowed.includes(name))
			throw fail(
				`${name} is not accepted here; the body may have: ${allowed.length > 0 ? allowed.join(', ') : 'no fields'}`,
			);
	}
}

function checkConsent(value: unknown): Consent {
	if (!isPlainObject(value) || !(CONSENT_STATUSES as readonly unknown[]).includes(value.status)) {
		throw unprocessable(
			`custom_fields.${CONSENT_FIELD}.status must be one of: ${CONSENT_STATUSES.join(', ')}`,
		);
	}
	for (const part of ['channel', 'source', 'recorded_at'] as const) {
		if (value[part] !== undefined && typeof value[part] !== 'string')
			throw unprocessable(`custom_fields.${CONSENT_FIELD}.${part} must be a string`);
	}
	if (typeof value.recorded_at === 'string' && Number.isNaN(Date.parse(value.recorded_at))) {
		throw unprocessable(`custom_fields.${CONSENT_FIELD}.recorded_at must be an ISO 8601 date`);
	}
	return { ...value, status: value.status } as Consent;
}

/**
 * The consent to store when the client gave no time (assumed): the stored record's time while the
 * consent is the same (status and channel), so a repeated upsert does not move when consent was
 * given; the time of this write when the consent is new or changed.
 */
function stampConsent(consent: Consent, stored: unknown, now: string): Consent {
	if (consent.recorded_at !== undefined) return consent;
	const same =
		isPlainObject(stored) &&
		stored.status === consent.status &&
		stored.channel === consent.channel &&
		typeof stored.recorded_at === 'string';
	return { ...consent, recorded_at: same ? (stored.recorded_at as string) : now };
}

interface LeadInput {
	fields: Partial<Record<LeadWritableField, string | null>>;
	customFields?: Record<string, unknown>;
}

function checkLeadInput(input: Record<string, unknown>): LeadInput {
	for (const name of Object.keys(input)) {
		if (READ_ONLY_FIELDS.has(name))
			throw unprocessable(`${name} is set by the service and cannot be written`);
		if (!LEAD_INPUT_FIELDS.has(name))
			throw unprocessable(
				`${name} is not a lead field; the writable fields are ${[...LEAD_INPUT_FIELDS].join(', ')}`,
			);
	}
	const fields: LeadInput['fields'] = {};
	for (const field of LEAD_WRITABLE_FIELDS) {
		const value = input[field];
		if (value === undefined) continue;
		if (value !== null && typeof value !== 'string')
			throw unprocessable(`${field} must be a string or null`);
		const trimmed = value?.trim() ?? null;
		fields[field] = trimmed === '' ? null : trimmed;
	}
	if (!LEAD_MATCH_ORDER.some((field) => typeof fields[field] === 'string')) {
		throw unprocessable(`A lead needs at least one of ${LEAD_MATCH_ORDER.join(', ')}`);
	}
	if (typeof fields.email === 'string' && !EMAIL_PATTERN.test(fields.email))
		throw unprocessable('email is not a valid email address');
	if (input.custom_fields === undefined) return { fields };
	if (!isPlainObject(input.custom_fields)) throw unprocessable('custom_fields must be an object');
	const customFields = { ...input.custom_fields };
	if (CONSENT_FIELD in customFields)
		customFields[CONSENT_FIELD] = checkConsent(customFields[CONSENT_FIELD]);
	return { fields, customFields };
}

/**
 * Creates a lead, or updates the one matched on the first of external_id, email, phone the body
 * has. A new lead comes back with the lead.created event it emitted.
 */
export function upsertLead(
	state: SandboxState,
	input: Record<string, unknown>,
): { lead: Lead; created: boolean; event?: EventEnvelope } {
	const now = state.now();
	const { fields, customFields } = checkLeadInput(input);
	const matchField = LEAD_MATCH_ORDER.find((field) => typeof fields[field] === 'string');
	const existing =
		matchField === undefined
			? undefined
			: state.store.findLead(matchField, fields[matchField] as string);
	if (customFields && CONSENT_FIELD in customFields) {
		customFields[CONSENT_FIELD] = stampConsent(
			customFields[CONSENT_FIELD] as Consent,
			existing?.custom_fields[CONSENT_FIELD],
			now,
		);
	}
	if (existing) {
		const lead = state.store.saveLead({
			...existing,
			...fields,
			custom_fields: { ...existing.custom_fields, ...customFields },
			updated_at: now,
		});
		state.stats.count('leadsUpdated');
		return { lead, created: false };
	}
	const lead = state.store.saveLead({
		id: newId('lead'),
		email: null,
		phone: null,
		first_name: null,
		last_name: null,
		external_id: null,
		source: null,
		...fields,
		custom_fields: customFields ?? {},
		created_at: now,
		updated_at: now,
	});
	state.stats.count('leadsCreated');
	const { event } = state.deliveries.emit('lead.created', { ...lead });
	return { lead, created: true, event };
}

/** Without the sensitive-read scope every word keeps its first character only. */
function maskText(text: string): string {
	return text.replace(/\S+/gu, (word) => {
		const [first, ...rest] = Array.from(word);
		return first + '•'.repeat(rest.length);
	});
}

export function readMessage(message: Message, sensitive: boolean): Message {
	return sensitive
		? { ...message, masked: false }
		: { ...message, content: maskText(message.content), masked: true };
}

function consentStatus(lead: Lead): unknown {
	const consent = lead.custom_fields[CONSENT_FIELD];
	return isPlainObject(consent) ? consent.status : undefined;
}

/** Hands the lead's latest thread to the assistant; the greeting goes out only with consent granted. */
export function assistantTakeover(
	state: SandboxState,
	leadId: string,
	input: Record<string, unknown>,
): TakeoverResult {
	rejectUnknownFields(input, ['note'], unprocessable);
	if (input.note !== undefined && typeof input.note !== 'string')
		throw unprocessable('note must be a string');
	const lead = orNotFound(state.store.leads.get(leadId), 'lead', leadId);
	const now = state.now();
	const consent = consentStatus(lead);
	const greeting: TakeoverResult['greeting'] =
		consent === 'granted'
			? { sent: true }
			: { sent: false, reason: consent === undefined ? 'consent_missing' : 'consent_not_granted' };
	const latest = state.store.threadsOf(lead.id).at(-1);
	const thread: Thread = latest ?? {
		id: newId('thr'),
		lead_id: lead.id,
		channel: lead.phone ? 'sms' : 'email',
		status: 'open',
		last_message_at: null,
	};
	thread.status = 'assistant_active';
	if (greeting.sent) {
		state.store.messages.set({
			id: newId('msg'),
			thread_id: thread.id,
			direction: 'outbound',
			content: `Hi ${lead.first_name ?? 'there'}, this is the assistant. How can I help you today?`,
			masked: false,
			created_at: now,
		});
		thread.last_message_at = now;
	}
	state.store.saveThread(thread);
	state.stats.count('takeovers');
	return { lead_id: lead.id, status: 'assistant_active', greeting };
}

function changeCampaign(
	state: SandboxState,
	campaign: Campaign,
	changes: Partial<Pick<Campaign, 'name' | 'status'>>,
): Campaign {
	const updated = state.store.campaigns.set({ ...campaign, ...changes, updated_at: state.now() });
	state.deliveries.emit('campaign.updated', { ...updated });
	return updated;
}

/** The status a campaign has once a dispatch is queued. */
export const DISPATCHED_STATUS = 'sending';

export function dispatchCampaign(
	state: SandboxState,
	campaignId: string,
	input: Record<string, unknown>,
): DispatchResult {
	rejectUnknownFields(input, ['lead_ids'], unprocessable);
	const campaign = orNotFound(state.store.campaigns.get(campaignId), 'campaign', campaignId);
	let leadIds: string[] | null = null;
	if (input.lead_ids !== undefined) {
		const ids = input.lead_ids;
		if (
			!Array.isArray(ids) ||
			ids.length === 0 ||
			!ids.every((id): id is string => typeof id === 'string')
		) {
			throw unprocessable('lead_ids must be a non-empty array of lead ids');
		}
		const unknown = ids.filter((id) => !state.store.leads.get(id));
		if (unknown.length > 0)
			throw unprocessable(
				`lead_ids has ${unknown.length} unknown lead id(s): ${unknown.slice(0, 10).join(', ')}`,
			);
		leadIds = [...ids];
	}
	const dispatch = state.store.dispatches.set({
		id: newId('dsp'),
		campaign_id: campaign.id,
		lead_ids: leadIds,
		created_at: state.now(),
	});
	changeCampaign(state, campaign, { status: DISPATCHED_STATUS });
	state.stats.count('dispatches');
	return { campaign_id: campaign.id, dispatch_id: dispatch.id, status: 'queued' };
}

/** A change made on the service's side (admin API): name and/or status, and a new updated_at. */
export function touchCampaign(
	state: SandboxState,
	campaignId: string,
	input: Record<string, unknown>,
): Campaign {
	rejectUnknownFields(input, ['name', 'status'], badRequest);
	const campaign = orNotFound(state.store.campaigns.get(campaignId), 'campaign', campaignId);
	const changes: Partial<Pick<Campaign, 'name' | 'status'>> = {};
	for (const field of ['name', 'status'] as const) {
		const value = input[field];
		if (value === undefined) continue;
		if (typeof value !== 'string' || value.trim() === '')
			throw badRequest(`${field} must be a non-empty string`);
		changes[field] = value;
	}
	return changeCampaign(state, campaign, changes);
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addSubnet('0.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addAddress('::', 'ipv6');

/** localhost names and loopback addresses, however written (IPv4-mapped IPv6 included). */
function isLoopbackHost(hostname: string): boolean {
	const host = hostname
		.replace(/^\[|\]$/g, '')
		.replace(/\.$/, '')
		.toLowerCase();
	if (host === 'localhost' || host.endsWith('.localhost')) return true;
	const family = isIP(host);
	return family !== 0 && LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

export function publicSubscription(subscription: StoredSubscription): Subscription {
	return {
		id: subscription.id,
		url: subscription.url,
		events: [...subscription.events],
		created_at: subscription.created_at,
	};
}

/** Returns the subscription with its secret: the only time the secret is shown. */
export function createSubscription(
	state: SandboxState,
	input: Record<string, unknown>,
): Subscription {
	rejectUnknownFields(input, ['url', 'events'], badRequest);
	const rawUrl = typeof input.url === 'string' ? input.url : '';
	let url: URL | undefined;
	try {
		url = new URL(rawUrl);
	} catch {
		url = undefined;
	}
	if (url?.protocol !== SUBSCRIPTION_URL_PROTOCOL)
		throw badRequest('url must be an absolute https:// URL');
	if (!state.allowLoopbackWebhooks && isLoopbackHost(url.hostname)) {
		throw badRequest('url must not point at a loopback host (localhost, 127.0.0.0/8, ::1)');
	}
	const events = input.events;
	if (
		!Array.isArray(events) ||
		events.length === 0 ||
		!events.every((event): event is string => typeof event === 'string' && event.trim() !== '')
	) {
		throw badRequest('events must be a non-empty array of event names, e.g. ["lead.created"]');
	}
	const subscription = state.store.subscriptions.set({
		id: newId('sub'),
		// Stored as given, so a client can find its subscription by the URL it sent.
		url: rawUrl,
		events: [...new Set(events)],
		created_at: state.now(),
		secret: `${EVENT_SIGNATURE.secretPrefix}${randomBytes(24).toString('base64')}`,
	});
	state.stats.count('subscriptionsCreated');
	state.store.issuedSecrets.push(subscription.secret);
	return { ...publicSubscription(subscription), secret: subscription.secret };
}
