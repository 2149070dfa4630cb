import type {
	Campaign,
	Lead,
	LeadWritableField,
	Message,
	Subscription,
	Thread,
} from '../nodes/Svc/contract';
import { LEAD_MATCH_ORDER } from '../nodes/Svc/contract';
import { Collection } from './collection';

/** A subscription as stored: the secret is kept, but only the creation response shows it. */
export type StoredSubscription = Subscription & { secret: string };

export interface Dispatch {
	id: string;
	campaign_id: string;
	/** null: every eligible lead. */
	lead_ids: string[] | null;
	created_at: string;
}

/** Emails match whatever their case; other identifiers match exactly. */
function indexValue(field: LeadWritableField, value: string): string {
	return field === 'email' ? value.toLowerCase() : value;
}

/** All the service's data, in memory. Leads are indexed by each match field for O(1) upserts. */
export class Store {
	readonly leads = new Collection<Lead>('leads');
	readonly threads = new Collection<Thread>('threads');
	readonly messages = new Collection<Message>('messages');
	readonly campaigns = new Collection<Campaign>('campaigns');
	readonly subscriptions = new Collection<StoredSubscription>('webhook-subscriptions');
	readonly dispatches = new Collection<Dispatch>('dispatches');
	/** Every signing secret handed out since the start, deleted subscriptions' too (reset keeps them), for secret-hygiene checks. */
	readonly issuedSecrets: string[] = [];
	/** Per match field and value, the ids of the leads that have it, oldest first. */
	private readonly leadIndex = new Map<LeadWritableField, Map<string, string[]>>(
		LEAD_MATCH_ORDER.map((field) => [field, new Map()]),
	);

	private readonly threadsByLead = new Map<string, string[]>();

	/** The lead's threads, oldest first. */
	threadsOf(leadId: string): Thread[] {
		return (this.threadsByLead.get(leadId) ?? []).flatMap((id) => this.threads.get(id) ?? []);
	}

	saveThread(thread: Thread): Thread {
		if (!this.threads.get(thread.id)) {
			const ids = this.threadsByLead.get(thread.lead_id) ?? [];
			ids.push(thread.id);
			this.threadsByLead.set(thread.lead_id, ids);
		}
		return this.threads.set(thread);
	}

	/**
	 * The lead whose match field has this value. Several can share one (a lead created by
	 * external_id may carry another's email); the oldest wins.
	 */
	findLead(field: LeadWritableField, value: string): Lead | undefined {
		const ids = this.leadIndex.get(field)?.get(indexValue(field, value));
		return ids === undefined ? undefined : this.leads.get(ids[0]);
	}

	saveLead(lead: Lead): Lead {
		const previous = this.leads.get(lead.id);
		for (const [field, index] of this.leadIndex) {
			const before = previous?.[field];
			const after = lead[field];
			if (before === after) continue;
			if (typeof before === 'string') {
				const value = indexValue(field, before);
				const ids = (index.get(value) ?? []).filter((id) => id !== lead.id);
				if (ids.length > 0) index.set(value, ids);
				else index.delete(value);
			}
			if (typeof after === 'string') {
				const value = indexValue(field, after);
				// Kept in creation order, so "the oldest wins" holds after edits too.
				const ids = [...(index.get(value) ?? []), lead.id].sort(
					(a, b) => this.leads.order(a) - this.leads.order(b),
				);
				index.set(value, ids);
			}
		}
		return this.leads.set(lead);
	}

	clear(): void {
		for (const collection of [
			this.leads,
			this.threads,
			this.messages,
			this.campaigns,
			this.subscriptions,
			this.dispatches,
		])
			collection.clear();
		for (const index of this.leadIndex.values()) index.clear();
		this.threadsByLead.clear();
	}
}
