import type { KeyObject } from 'node:crypto';

import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { EventEnvelope } from '../contract';
import { EVENT_SIGNATURE } from '../contract';
import { BUSY_RETRY_AFTER_SECONDS, catchUps, HOLD_MS, SAVE_LAG_WINDOW } from './backPressure';
import type { StoredSubscription } from './lifecycle';
import { credentialApiKey, desiredEvents, storedSubscription } from './lifecycle';
import { openedKeys } from './sealedSecret';
import { processClaims, SeenEvents } from './seenEvents';
import { verifyDelivery } from './signature';

/** Events are small; anything larger is refused before any HMAC work is spent on it. */
export const MAX_DELIVERY_BYTES = 1024 * 1024;

function headerValue(headers: IDataObject, name: string): string | undefined {
	const value = headers[name];
	if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : undefined;
	return typeof value === 'string' ? value : undefined;
}

function isEnvelope(value: unknown): value is EventEnvelope {
	if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
	const event = value as Partial<EventEnvelope>;
	return typeof event.id === 'string' && event.id !== '' && typeof event.type === 'string' && event.type !== '';
}

/** Answers the delivery itself and starts no execution. */
function answer(ctx: IWebhookFunctions, status: number, body: IDataObject): IWebhookResponseData {
	ctx.getResponseObject().status(status).json(body);
	return { noWebhookResponse: true };
}

/** Lets something happen once per interval per key: the first call after the interval says yes. */
class PerKeyInterval {
	private readonly last = new Map<string, number>();

	constructor(private readonly intervalMs: number) {}

	due(key: string, now: number): boolean {
		if (now - (this.last.get(key) ?? 0) < this.intervalMs) return false;
		this.last.set(key, now);
		return true;
	}
}

/** Warnings are logged once a minute per cause, not once per delivery. */
const warnings = new PerKeyInterval(60_000);

function warnAtMostEveryMinute(ctx: IWebhookFunctions, key: string, now: number, message: () => string): void {
	if (warnings.due(key, now)) ctx.logger.warn(message());
}

/**
 * A held delivery writes the accepted ids back at most once a second per trigger: a save by
 * another process (queue mode) may have dropped them, and only a save of this one restores them.
 */
const writeBacks = new PerKeyInterval(1_000);

/**
 * The subscription's HMAC key, opened once per process with the credential's API key. After
 * the key was changed in the credential it no longer opens: say so in the log (a delivery that
 * cannot be verified must not fail silently) and how to recover.
 */
async function signingKey(ctx: IWebhookFunctions, subscription: StoredSubscription): Promise<KeyObject | undefined> {
	const cached = openedKeys.get(subscription.sealedSecret);
	if (cached) return cached;
	// A credential that cannot be read or holds a malformed key opens nothing either.
	const apiKey = await credentialApiKey(ctx).catch(() => undefined);
	const key = apiKey === undefined ? undefined : openedKeys.open(apiKey, subscription.id, subscription.sealedSecret);
	if (!key) {
		warnAtMostEveryMinute(
			ctx,
			subscription.sealedSecret,
			Date.now(),
			() =>
				`Svc Trigger "${ctx.getNode().name}" in workflow ${ctx.getWorkflow().id} cannot verify deliveries: its signing secret does not open with the credential's API key, which was changed or is malformed since the workflow was published. Deliveries are answered 503 (the service retries them). Unpublish and publish the workflow again (n8n 1.x: deactivate and activate) to subscribe with the current key.`,
		);
	}
	return key;
}

/**
 * One delivery: verify the signature over the raw body, then parse, de-duplicate by event id,
 * and drop kinds this trigger did not subscribe to. Only a new, verified, subscribed event
 * starts the workflow.
 */
export async function receiveDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const request = this.getRequestObject();
	const headers = this.getHeaderData() as IDataObject;
	const staticData = this.getWorkflowStaticData('node');
	const subscription = storedSubscription(staticData);
	if (!subscription) return answer(this, 401, { error: 'This trigger has no active subscription' });

	const rawBody: Buffer | undefined = (request as { rawBody?: Buffer }).rawBody;
	if ((rawBody?.length ?? 0) > MAX_DELIVERY_BYTES) return answer(this, 413, { error: `The body is larger than ${MAX_DELIVERY_BYTES} bytes` });
	const contentType = headerValue(headers, 'content-type') ?? '';
	if (!/^application\/json\s*(;|$)/i.test(contentType)) return answer(this, 415, { error: 'Deliveries must have Content-Type: application/json' });
	const delivery = {
		id: headerValue(headers, EVENT_SIGNATURE.idHeader),
		timestamp: headerValue(headers, EVENT_SIGNATURE.timestampHeader),
		signature: headerValue(headers, EVENT_SIGNATURE.signatureHeader),
	};
	const key = await signingKey(this, subscription);
	if (!key) return answer(this, 503, { error: 'This trigger cannot verify deliveries until its workflow is published again' });
	const verification = verifyDelivery(key, delivery, rawBody ?? Buffer.alloc(0), Math.floor(Date.now() / 1000));
	if (!verification.valid) {
		this.logger.debug(`Svc Trigger refused a delivery: ${verification.reason}`);
		return answer(this, 401, { error: 'Invalid signature', reason: verification.reason });
	}

	let event: unknown;
	try {
		event = JSON.parse((rawBody ?? Buffer.alloc(0)).toString('utf8'));
	} catch {
		return answer(this, 400, { error: 'The body is not valid JSON' });
	}
	if (!isEnvelope(event)) return answer(this, 400, { error: 'The body is not an event with an id and a type' });
	if (event.id !== delivery.id) return answer(this, 400, { error: 'The event id does not match the webhook-id header' });

	const now = Date.now();
	// Per subscription URL: the published workflow and an editor's test listen each get every
	// event once, with the same id, and neither copy may count as the other's repeat.
	const scope = `${this.getWorkflow().id}/${this.getNode().id} ${subscription.url}`;
	const seen = SeenEvents.load(staticData, now);
	// The live record of this process: it also holds the claim below once it is made.
	const knownHere = processClaims.known(scope, now);
	// Back-pressure (see backPressure.ts). Test runs from the editor never save static data, and
	// are not counted.
	const saveLagMs = this.getMode() === 'manual' ? 0 : seen.saveLagMs(knownHere, now, SAVE_LAG_WINDOW);
	catchUps.observe(scope, now, saveLagMs);
	const subscribed = desiredEvents(this).includes(event.type);
	const startsExecution = subscribed && !seen.has(event.id) && !knownHere.has(event.id);
	// Only what would start an execution waits: a repeat or an ignored kind is answered at once.
	if (saveLagMs > 0 && startsExecution) {
		if (writeBacks.due(scope, now)) seen.writeBack(staticData, now, knownHere);
		warnAtMostEveryMinute(
			this,
			`busy ${scope}`,
			now,
			() =>
				`Svc Trigger "${this.getNode().name}" in workflow ${this.getWorkflow().id} holds deliveries: n8n's database is ${Math.round(saveLagMs / 1000)} s behind on saving what this trigger accepted. Each is held up to ${HOLD_MS / 1000} s for n8n to catch up, else answered 503 so the service delivers it again later. If this lasts, run n8n with PostgreSQL in queue mode (see the package's docs on bursts).`,
		);
		if (!(await catchUps.holdUntilCaughtUp(scope, now, HOLD_MS))) {
			this.getResponseObject().set('Retry-After', String(BUSY_RETRY_AFTER_SECONDS));
			return answer(this, 503, { error: 'n8n is behind on saving events; deliver this one again later' });
		}
	}
	// After a hold the stored list this delivery loaded is older, but the ids of this process are
	// merged into what it saves.
	const acceptedAt = Date.now();
	const firstInProcess = processClaims.claim(scope, event.id, acceptedAt);
	if (!seen.recordIfNew(staticData, event.id, acceptedAt, knownHere) || !firstInProcess) return answer(this, 200, { received: true, duplicate: true });
	if (!subscribed) return answer(this, 200, { received: true, ignored: true });

	const options = this.getNodeParameter('options', {}) as IDataObject;
	const output: IDataObject = {
		id: event.id,
		type: event.type,
		created_at: event.created_at,
		data: event.data,
		meta: {
			verified: true,
			webhook_id: delivery.id,
			webhook_timestamp: Number(delivery.timestamp),
			...(headerValue(headers, 'webhook-attempt') ? { attempt: Number(headerValue(headers, 'webhook-attempt')) } : {}),
		},
	};
	if (options.includeHeaders === true) output.headers = headers;
	// Answering here, before the execution starts, is also what makes n8n save the static data
	// (the seen event id): n8n 2.x saves it when the response is sent, and starting an execution
	// first re-wraps the static data and loses its "changed" mark.
	answer(this, 200, { received: true });
	return { noWebhookResponse: true, workflowData: [[{ json: output }]] };
}
