import type { ConsentStatus, Lead, Message, Thread } from '../nodes/Svc/contract';
import { CONSENT_FIELD } from '../nodes/Svc/contract';
import type { Store } from './store';

/** Fixed, so seed data (and anything derived from it) is the same on every start. */
const SEED_START = Date.UTC(2026, 0, 5, 9, 0, 0);
const MINUTE = 60_000;

interface Person {
	first: string;
	last: string;
	source: string;
	consent: ConsentStatus | null;
	company?: string;
}

const PEOPLE: Person[] = [
	{
		first: 'Ada',
		last: 'Lovelace',
		source: 'web-form',
		consent: 'granted',
		company: 'Analytical Engines',
	},
	{ first: 'Grace', last: 'Hopper', source: 'web-form', consent: 'granted' },
	{ first: 'Alan', last: 'Turing', source: 'referral', consent: 'denied' },
	{ first: 'Katherine', last: 'Johnson', source: 'import', consent: null, company: 'Orbital Math' },
	{ first: 'Linus', last: 'Pauling', source: 'web-form', consent: 'granted' },
	{
		first: 'Hedy',
		last: 'Lamarr',
		source: 'event',
		consent: 'granted',
		company: 'Frequency Hopping',
	},
	{ first: 'Claude', last: 'Shannon', source: 'referral', consent: 'denied' },
	{ first: 'Rosalind', last: 'Franklin', source: 'web-form', consent: 'granted' },
	{ first: 'Edsger', last: 'Dijkstra', source: 'import', consent: 'granted' },
	{ first: 'Barbara', last: 'Liskov', source: 'event', consent: 'denied' },
	{ first: 'Tim', last: 'Berners-Lee', source: 'web-form', consent: 'granted' },
	{
		first: 'Margaret',
		last: 'Hamilton',
		source: 'referral',
		consent: 'granted',
		company: 'Apollo Software',
	},
];

/** Message templates; some carry an email or a phone number, so masking has something to hide. */
const CONVERSATION: Array<{ direction: Message['direction']; text: (lead: Lead) => string }> = [
	{
		direction: 'inbound',
		text: (lead) =>
			`Hi, I filled in the form on your site. You can reach me at ${lead.email ?? 'this address'}.`,
	},
	{
		direction: 'outbound',
		text: (lead) => `Thanks ${lead.first_name ?? ''}! Would a call tomorrow at 10:00 work for you?`,
	},
	{
		direction: 'inbound',
		text: (lead) => `Yes, please call me on ${lead.phone ?? 'my mobile'} after 9.`,
	},
	{ direction: 'outbound', text: () => 'Great, it is booked. Talk soon.' },
	{ direction: 'inbound', text: () => 'Could you send me the pricing sheet first?' },
	{ direction: 'outbound', text: () => 'Sure, it is on its way. Anything else I can help with?' },
];

const CHANNELS = ['sms', 'email', 'whatsapp'];

function iso(ms: number): string {
	return new Date(ms).toISOString();
}

function pad(n: number): string {
	return String(n).padStart(4, '0');
}

/** 12 leads (consent granted, denied or absent), 1–2 threads each with 2–4 messages, 3 campaigns. */
export function seedStore(store: Store): void {
	let threadNo = 0;
	let messageNo = 0;
	PEOPLE.forEach((person, index) => {
		const n = index + 1;
		const createdAt = SEED_START + index * 60 * MINUTE;
		const customFields: Record<string, unknown> = {};
		if (person.company !== undefined) customFields.company = person.company;
		if (person.consent !== null) {
			customFields[CONSENT_FIELD] = {
				status: person.consent,
				channel: 'email',
				recorded_at: iso(createdAt),
				source: person.source,
			};
		}
		const lead = store.saveLead({
			id: `lead_${pad(n)}`,
			email: `${person.first}.${person.last}@example.com`.toLowerCase(),
			phone: `+1415555${pad(100 + n)}`,
			first_name: person.first,
			last_name: person.last,
			external_id: `crm-${1000 + n}`,
			source: person.source,
			custom_fields: customFields,
			created_at: iso(createdAt),
			updated_at: iso(createdAt),
		});
		const threadCount = 1 + (index % 2);
		for (let t = 0; t < threadCount; t++) {
			const thread: Thread = {
				id: `thr_${pad(++threadNo)}`,
				lead_id: lead.id,
				channel: CHANNELS[(index + t) % CHANNELS.length],
				status: t === 0 ? 'open' : 'closed',
				last_message_at: null,
			};
			const messageCount = 2 + ((index + t) % 3);
			for (let m = 0; m < messageCount; m++) {
				const template = CONVERSATION[(t * 2 + m) % CONVERSATION.length];
				const at = iso(createdAt + (t * 10 + m + 1) * 5 * MINUTE);
				store.messages.set({
					id: `msg_${pad(++messageNo)}`,
					thread_id: thread.id,
					direction: template.direction,
					content: template.text(lead),
					masked: false,
					created_at: at,
				});
				thread.last_message_at = at;
			}
			store.saveThread(thread);
		}
	});
	const campaigns: Array<[string, string]> = [
		['Spring welcome series', 'draft'],
		['Webinar follow-up', 'approved'],
		['Reactivation: 90 days quiet', 'active'],
	];
	campaigns.forEach(([name, status], index) => {
		store.campaigns.set({
			id: `cmp_${pad(index + 1)}`,
			name,
			status,
			updated_at: iso(SEED_START + index * 24 * 60 * MINUTE),
		});
	});
}
