import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Subscription } from '../contract';
import { mergeEventKinds, sameEventKinds, subscriptionProblems } from '../shared/subscription';
import { SvcClient } from '../transport';

/** What the trigger keeps about its subscription in the node's static data. */
export interface StoredSubscription {
	id: string;
	secret: string;
	url: string;
	events: string[];
}

const KEY = 'subscription';

export function storedSubscription(staticData: IDataObject): StoredSubscription | undefined {
	const value = staticData[KEY] as Partial<StoredSubscription> | undefined;
	return value?.id && value.secret ? (value as StoredSubscription) : undefined;
}

function store(staticData: IDataObject, subscription: StoredSubscription | undefined): void {
	if (subscription) staticData[KEY] = { ...subscription };
	else delete staticData[KEY];
}

export function desiredEvents(ctx: Pick<IHookFunctions, 'getNodeParameter'>): string[] {
	return mergeEventKinds(ctx.getNodeParameter('events', []), ctx.getNodeParameter('otherEvents', ''));
}

/** A subscription that is already gone (404) counts as deleted. */
async function deleteIfPresent(client: SvcClient, id: string): Promise<void> {
	await client.request('deleteSubscription', { pathParams: { subscription_id: id }, notFoundIsAnswer: true });
}

/**
 * Reconciles with the service: keeps the stored subscription only if it still exists with this
 * webhook URL and these events (and its secret is known); deletes every other subscription that
 * points at this webhook URL, so at most one stays live; never touches other URLs.
 */
export async function checkExists(this: IHookFunctions): Promise<boolean> {
	const staticData = this.getWorkflowStaticData('node');
	const url = this.getNodeWebhookUrl('default') ?? '';
	const events = desiredEvents(this);
	const client = await SvcClient.connect(this);
	const stored = storedSubscription(staticData);
	if (stored) client.redactor.add(stored.secret);

	const atThisUrl = (await client.paginate<Subscription>('listSubscriptions')).filter((subscription) => subscription.url === url);
	const kept = atThisUrl.find(
		(subscription) => stored !== undefined && subscription.id === stored.id && sameEventKinds(subscription.events, events),
	);
	for (const subscription of atThisUrl) {
		if (subscription !== kept) await deleteIfPresent(client, subscription.id);
	}
	if (!kept) store(staticData, undefined);
	return kept !== undefined;
}

export async function create(this: IHookFunctions): Promise<boolean> {
	const url = this.getNodeWebhookUrl('default') ?? '';
	const events = desiredEvents(this);
	if (!url.startsWith('https://')) {
		throw new NodeOperationError(this.getNode(), `The service delivers events only to https URLs, and n8n's webhook URL for this trigger is ${url}`, {
			description:
				'Set N8N_WEBHOOK_URL (n8n 2.x; WEBHOOK_URL also works) to the public https address of this n8n, for example https://n8n.example.com/, then activate the workflow again.',
		});
	}
	const problems = subscriptionProblems(url, events);
	if (problems.length > 0) throw new NodeOperationError(this.getNode(), problems[0], { description: problems.join(' ') });

	const client = await SvcClient.connect(this);
	// A random key: retries of this create reuse it, while a later activation must not be
	// answered with the replay of a subscription that was deleted since.
	const { body } = await client.request<Subscription>('createSubscription', { body: { url, events } });
	if (!body.secret) {
		await deleteIfPresent(client, body.id);
		throw new NodeOperationError(this.getNode(), 'The service created the subscription without a signing secret, so deliveries could not be verified; it was deleted again');
	}
	client.redactor.add(body.secret);
	store(this.getWorkflowStaticData('node'), { id: body.id, secret: body.secret, url, events });
	return true;
}

/**
 * Deletes the stored subscription, and any other one at this webhook URL (left behind when
 * static data was lost), so deactivation leaves nothing delivering here.
 */
export async function remove(this: IHookFunctions): Promise<boolean> {
	const staticData = this.getWorkflowStaticData('node');
	const url = this.getNodeWebhookUrl('default') ?? '';
	const stored = storedSubscription(staticData);
	const client = await SvcClient.connect(this);
	if (stored) {
		client.redactor.add(stored.secret);
		await deleteIfPresent(client, stored.id);
	}
	const leftovers = (await client.paginate<Subscription>('listSubscriptions')).filter(
		(subscription) => subscription.url === url && subscription.id !== stored?.id,
	);
	for (const subscription of leftovers) await deleteIfPresent(client, subscription.id);
	store(staticData, undefined);
	return true;
}
