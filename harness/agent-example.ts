/**
 * examples/ai-agent-qualify-lead.json offline: the script the scripted model plays for it, and the
 * id of the chat model credential it refers to. `npm run dev` and the e2e test use both.
 */
import type { CredentialInput } from './n8n/api';
import type { ChatRequest, JsonValue, Turn } from './scripted-model';
import { answer, callTool, lastToolResult, lastUserText } from './scripted-model';

export const AGENT_EXAMPLE_FILE = 'ai-agent-qualify-lead.json';
/** The id the example uses for its openAiApi credential (kept by n8n 2.x; 1.x makes its own). */
export const SCRIPTED_MODEL_CREDENTIAL_ID = 'scriptedModel';
export const SCRIPTED_MODEL_CREDENTIAL_NAME = 'Scripted model (local)';
/**
 * The openAiApi credential for a scripted model at `url` (…/v1), with the example's name and, when
 * given, `id` (n8n 2.x keeps it; 1.x makes its own). The scripted model reads no key; `header:
 * false` is spelled out because n8n 1.x's public API otherwise asks for headerName and headerValue
 * (a JSON-schema `if` on an absent property holds), and 1.x has no "Allowed HTTP Request Domains"
 * fields on this type.
 */
export function scriptedModelCredential(url: string, id?: string): CredentialInput {
	return {
		...(id === undefined ? {} : { id }),
		name: SCRIPTED_MODEL_CREDENTIAL_NAME,
		type: 'openAiApi',
		data: { apiKey: 'sk-scripted-model-reads-no-key', url, header: false },
	};
}

/** The agent node of the example, whose output is the model's final answer. */
export const AGENT_EXAMPLE_AGENT = 'Qualify Lead';

type LeadRecord = { [key: string]: JsonValue } & { id: string };

const EMAIL = /[^\s@<>"']+@[^\s@<>"']+\.[A-Za-z]{2,}/;

/** A tool result's JSON, or undefined when it is not JSON (n8n may answer a tool failure as text). */
function parseJson(text: string): JsonValue | undefined {
	try {
		return JSON.parse(text) as JsonValue;
	} catch {
		return undefined;
	}
}

/** The first object with a string `id` in a tool result (n8n sends the tool's items as JSON). */
export function firstRecord(text: string): LeadRecord | undefined {
	const parsed = parseJson(text);
	if (parsed === undefined) return undefined;
	const queue: JsonValue[] = [parsed];
	while (queue.length > 0) {
		const value = queue.shift();
		if (Array.isArray(value)) queue.push(...value);
		else if (typeof value === 'object' && value !== null) {
			if (typeof value.id === 'string') return { ...value, id: value.id };
			queue.push(...Object.values(value));
		}
	}
	return undefined;
}

/** A lead's consent status, from a simplified lead (`consent_status`) or a raw one (`custom_fields.consent.status`). */
function consentOf(lead: LeadRecord): string | undefined {
	if (typeof lead.consent_status === 'string') return lead.consent_status;
	const fields = lead.custom_fields;
	if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return undefined;
	const consent = fields.consent;
	if (typeof consent !== 'object' || consent === null || Array.isArray(consent)) return undefined;
	return typeof consent.status === 'string' ? consent.status : undefined;
}

/** The lead the lookup (turn 1) found, from the request's last tool result. */
function foundLead(request: ChatRequest): LeadRecord | undefined {
	return firstRecord(lastToolResult(request));
}

/** A turn after Find_Lead: hand the lead it found (`none` when it found none) to the assistant. */
export function handOverFoundLead(note: string): Turn {
	return callTool('Hand_To_Assistant', (request) => ({
		leadId: foundLead(request)?.id ?? 'none',
		note,
	}));
}

/**
 * What the example's model does: look the lead up by the email in the prompt; hand it to the
 * assistant when its consent is granted (else answer that it was left alone); then answer,
 * quoting the takeover's result.
 */
export function qualifyLeadScript(): Turn[] {
	return [
		callTool('Find_Lead', (request) => {
			const email = EMAIL.exec(lastUserText(request))?.[0];
			if (email === undefined) throw new Error('the prompt names no email');
			return { email };
		}),
		(request) => {
			const lead = foundLead(request);
			if (lead === undefined) return { answer: `No lead was found: ${lastToolResult(request)}` };
			const consent = consentOf(lead) ?? 'not recorded';
			if (consent !== 'granted')
				return { answer: `Left lead ${lead.id} alone: its consent is ${consent}.` };
			return {
				toolCalls: [
					{
						name: 'Hand_To_Assistant',
						arguments: {
							leadId: lead.id,
							note: 'Consent granted; new lead qualified by the agent.',
						},
					},
				],
			};
		},
		answer((request) => handoverAnswer(lastToolResult(request))),
	];
}

/** The example's final answer in words a person reads, from the takeover tool's result (JSON). */
function handoverAnswer(result: string): string {
	const parsed = parseJson(result);
	const record = (Array.isArray(parsed) ? parsed[0] : parsed) ?? null;
	if (typeof record !== 'object' || record === null || Array.isArray(record))
		return `The handover answered: ${result}`;
	if (typeof record.error === 'string') return `The handover failed: ${record.error}`;
	const greeting = record.greeting;
	const sent =
		record.greeting_sent ??
		(typeof greeting === 'object' && greeting !== null && !Array.isArray(greeting)
			? greeting.sent
			: undefined);
	const greeted =
		sent === true ? ', which greeted the lead' : sent === false ? '; no greeting was sent' : '';
	const leadId = typeof record.lead_id === 'string' ? record.lead_id : 'unknown';
	return `Handed lead ${leadId} to the assistant${greeted}.`;
}
