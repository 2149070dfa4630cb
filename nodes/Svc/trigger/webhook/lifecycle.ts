import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Subscription } from '../../contract';
import { desiredEvents, sameEventKinds, subscriptionProblems } from '../../shared/subscription';
import { CREDENTIAL_TYPE, checkApiKey, SvcClient, userError } from '../../transport';
import { openSecret, sealSecret } from './sealedSecret';

/** What the trigger keeps about its subscription in the node's static data: never the secret in clear. */
export interface StoredSubscription {
	id: string;
	/** The signing secret, sealed under the credential's API key (see sealedSecret.ts). */
	sealedSecret: string;
	url: string;
	events: string[];
	/** Made for the editor's "Listen for test event", not for the published workflow. */
	test: boolean;
	/** When the service created it (its clock): the first events it delivers come after. */
	createdAt?: string;
}

const KEY = 'subscription';

/**
 * n8n ends a test listen after 2 minutes at the most. A test subscription older than that plus
 * a margin for the clocks of n8n and the service cannot belong to an open listen.
 */
export const TEST_LISTEN_STALE_MS = 3 * 60_000;

export function storedSubscription(staticData: IDataObject): StoredSubscription | undefined {
	const value = staticData[KEY] as Partial<StoredSubscription> | undefined;
	return value?.id && value.sealedSecret && value.url ? (value as StoredSubscription) : undefined;
}

function store(staticData: IDataObject, subscription: StoredSubscription | undefined): void {
	if (subscription) staticData[KEY] = { ...subscription };
	else delete staticData[KEY];
}

/** The credential's API key, for sealing and opening the signing secret. */
export async function credentialApiKey(
	ctx: Pick<IHookFunctions, 'getCredentials'>,
): Promise<string> {
	return checkApiKey((await ctx.getCredentials(CREDENTIAL_TYPE)).apiKey);
}

/** One read of the credential: the client, and the API key that seals and opens the signing secret. */
async function connectWithKey(ctx: IHookFunctions): Promise<{ client: SvcClient; apiKey: string }> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	// connect() refuses a malformed key first, with the user's error.
	const client = await SvcClient.connect(ctx, { credentials });
	return { client, apiKey: checkApiKey(credentials.apiKey) };
}

/** The editor's test listen; publishing, start-up and removal run in other modes. */
function isTestListen(ctx: Pick<IHookFunctions, 'getMode'>): boolean {
	return ctx.getMode() === 'manual';
}

function isStaleTestListen(subscription: Subscription, now: number): boolean {
	const created = Date.parse(subscription.created_at);
	return Number.isFinite(created) && now - created >= TEST_LISTEN_STALE_MS;
}

/**
 * The same trigger's webhook under n8n's other endpoint: `/webhook/<id>/<path>` and
 * `/webhook-test/<id>/<path>` on the same host differ only in the segment before the id.
 */
export function isOtherEndpointOfTrigger(candidate: string, url: string): boolean {
	if (!URL.canParse(candidate) || !URL.canParse(url)) return false;
	const a = new URL(candidate);
	const b = new URL(url);
	const left = a.pathname.split('/');
	const right = b.pathname.split('/');
	const endpointIndex = right.length - 3;
	if (a.origin !== b.origin || left.length !== right.length || endpointIndex < 1) return false;
	return (
		left.every((segment, index) => index === endpointIndex || segment === right[index]) &&
		left[endpointIndex] !== right[endpointIndex]
	);
}

/** A subscription that is already gone (404) counts as deleted. */
async function deleteIfPresent(client: SvcClient, id: string): Promise<void> {
	await client.request('deleteSubscription', {
		pathParams: { subscription_id: id },
		answerStatuses: [404],
	});
}

/**
 * Reconciles with the service. Keeps the stored subscription only if it still exists with this
 * webhook URL and these events, and its sealed secret opens with the credential's key (after a
 * key rotation it does not, and the trigger subscribes anew). Also deletes:
 * - when publishing, every other subscription at this URL, so at most one stays live, and every
 *   test-listen subscription of this trigger that is stale (one left behind when n8n stopped
 *   while listening);
 * - when listening, stale subscriptions at the test URL only: a younger one may belong to a
 *   listen still open in another tab, and the published workflow's is never touched.
 */
export async function checkExists(this: IHookFunctions): Promise<boolean> {
	const staticData = this.getWorkflowStaticData('node');
	const url = this.getNodeWebhookUrl('default') ?? '';
	const events = desiredEvents(this);
	const testListen = isTestListen(this);
	const { client, apiKey } = await connectWithKey(this);
	const stored = storedSubscription(staticData);
	const secret = stored && openSecret(apiKey, stored.id, stored.sealedSecret);
	if (secret) client.redactor.add(secret);

	const now = Date.now();
	const all = await client.paginate<Subscription>('listSubscriptions');
	const kept = all.find(
		(subscription) =>
			secret !== undefined &&
			subscription.id === stored?.id &&
			subscription.url === url &&
			sameEventKinds(subscription.events, events),
	);
	const obsolete = all.filter((subscription) => {
		if (subscription === kept) return false;
		if (subscription.url === url) return !testListen || isStaleTestListen(subscription, now);
		return (
			!testListen &&
			isOtherEndpointOfTrigger(subscription.url, url) &&
			isStaleTestListen(subscription, now)
		);
	});
	for (const subscription of obsolete) await deleteIfPresent(client, subscription.id);
	if (stored && secret === undefined) {
		this.logger.warn(
			`Svc Trigger "${this.getNode().name}": the stored signing secret does not open with the credential's API key (was the key changed?); subscribing anew`,
		);
	}
	if (!kept) store(staticData, undefined);
	return kept !== undefined;
}

export async function create(this: IHookFunctions): Promise<boolean> {
	const url = this.getNodeWebhookUrl('default') ?? '';
	const events = desiredEvents(this);
	if (!url.startsWith('https://')) {
		// The whole fix is in the message: n8n 2.x's editor shows only the message of a listen or
		// publish that fails here, not the description (response-helper sendErrorResponse).
		throw userError(
			this.getNode(),
			`The service delivers events only to https URLs, and n8n's webhook URL for this trigger is ${url}. Set WEBHOOK_URL to the public https address of this n8n (e.g. https://n8n.example.com/) and restart it`,
			{
				description:
					'WEBHOOK_URL works on n8n 1.x and 2.x (2.x also reads N8N_WEBHOOK_URL first). Then listen again, or publish the workflow again (n8n 1.x: activate).',
			},
		);
	}
	const problems = subscriptionProblems(url, events);
	if (problems.length > 0)
		throw userError(this.getNode(), problems[0], { description: problems.join(' ') });

	const { client, apiKey } = await connectWithKey(this);
	// A random key: retries of this create reuse it, while a later activation must not be
	// answered with the replay of a subscription that was deleted since.
	const { body } = await client.request<Subscription>('createSubscription', {
		body: { url, events },
	});
	if (!body.secret) {
		await deleteIfPresent(client, body.id);
		throw new NodeOperationError(
			this.getNode(),
			'The service created the subscription without a signing secret, so deliveries could not be verified; it was deleted again',
		);
	}
	client.redactor.add(body.secret);
	store(this.getWorkflowStaticData('node'), {
		id: body.id,
		sealedSecret: sealSecret(apiKey, body.id, body.secret),
		url,
		events,
		test: isTestListen(this),
		createdAt: body.created_at,
	});
	return true;
}

/**
 * Deletes the stored subscription, and any other one at this webhook URL (left behind when
 * static data was lost), so unpublishing leaves nothing delivering here. At a test URL only
 * stale ones go: another tab may still be listening.
 */
export async function remove(this: IHookFunctions): Promise<boolean> {
	const staticData = this.getWorkflowStaticData('node');
	const url = this.getNodeWebhookUrl('default') ?? '';
	const stored = storedSubscription(staticData);
	const client = await SvcClient.connect(this);
	if (stored) await deleteIfPresent(client, stored.id);
	const now = Date.now();
	const leftovers = (await client.paginate<Subscription>('listSubscriptions')).filter(
		(subscription) =>
			subscription.url === url &&
			subscription.id !== stored?.id &&
			(stored?.test !== true || isStaleTestListen(subscription, now)),
	);
	for (const subscription of leftovers) await deleteIfPresent(client, subscription.id);
	store(staticData, undefined);
	return true;
}
