/**
 * The service's event list as both triggers read it (Svc Pull Trigger's poll, Svc Trigger's runner
 * on the main) and inside the execution: one page at a time, each event as the trigger's item, how
 * many events one execution gets, and where Svc Trigger runs its events from.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IPollFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { EventEnvelope, EventPage } from '../contract';
import { BATCH_SIZE_MAX } from '../shared/batching';
import { EVENT_EXPIRED_STATUS, EVENT_LIST_QUERY, LIST_LIMIT_MAX } from '../contract';
import type { SvcContext } from '../transport';
import { SvcClient, userError } from '../transport';

/**
 * Fewer retries than an action, and no long waits: the next poll tries again anyway, and a
 * longer Retry-After is kept between polls instead (quietUntil).
 */
export const POLL_CLIENT = { timeoutMs: 20_000, retry: { maxAttempts: 4, maxRetryAfterMs: 5_000 } };

/**
 * How many events one execution gets: 1 (one execution per event, the default) or the person's
 * Batch Size.
 */
export function eventsPerExecution(
	ctx: IPollFunctions | ITriggerFunctions | IExecuteFunctions | IWebhookFunctions,
): number {
	if (ctx.getNodeParameter('eventsPerExecution', 'one') !== 'batch') return 1;
	const size = ctx.getNodeParameter('batchSize', 100) as unknown;
	if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > BATCH_SIZE_MAX)
		throw userError(
			ctx.getNode(),
			`Batch Size must be a whole number from 1 to ${BATCH_SIZE_MAX}; got ${JSON.stringify(size)}`,
			{
				description:
					'Set Batch Size to the most events one execution should get (100 suits most workflows).',
			},
		);
	return size;
}

/** The event as the triggers output it; `meta` says how it came (by pull unless it says otherwise). */
export function toItem(event: EventEnvelope, meta: IDataObject): INodeExecutionData {
	return {
		json: {
			id: event.id,
			type: event.type,
			created_at: event.created_at,
			data: event.data,
			meta: { delivery: 'pull', ...meta },
		},
	};
}

const NO_EVENT_LIST = {
	message:
		'The service has no event list (GET /v1/events answered 404), which Svc Pull Trigger reads: use Svc Trigger instead, with n8n at a public https address',
	description:
		"Svc Trigger has the service send each event to n8n, which needs WEBHOOK_URL set to this n8n's public https address. If the service should have the event list, check the credential's Base URL.",
};

export type PageRead =
	| { kind: 'page'; page: EventPage }
	| { kind: 'expired' }
	/** A passing failure (429, 5xx, no answer) after the client's retries, and the wait it asks for. */
	| { kind: 'unavailable'; error: NodeApiError; waitMs: number };

export async function readPage(
	client: SvcClient,
	ctx: SvcContext,
	query: IDataObject,
): Promise<PageRead> {
	// The client's errors are n8n's already (NodeApiError, NodeOperationError): kept as they are.
	const response = await client
		.request<EventPage>('listEvents', {
			qs: { [EVENT_LIST_QUERY.limit]: LIST_LIMIT_MAX, ...query },
			answerStatuses: [404, EVENT_EXPIRED_STATUS],
		})
		.catch((error: unknown) => error as Error);
	if (response instanceof Error) {
		const waitMs = transientWaitMs(response);
		if (waitMs === undefined) throw response;
		return { kind: 'unavailable', error: response as NodeApiError, waitMs };
	}
	if (response.status === 404) throw userError(ctx.getNode(), NO_EVENT_LIST.message, NO_EVENT_LIST);
	if (response.status === EVENT_EXPIRED_STATUS) return { kind: 'expired' };
	if (!Array.isArray(response.body?.data))
		throw new NodeOperationError(
			ctx.getNode(),
			'The service answered GET /v1/events without a data list',
		);
	return { kind: 'page', page: response.body };
}

/** The wait a passing failure (429, 5xx, no answer) asks for; undefined for any other error. */
function transientWaitMs(error: unknown): number | undefined {
	const failure = error instanceof NodeApiError ? error.failure : undefined;
	if (failure?.cause !== 'rate-limited' && failure?.cause !== 'temporarily-unavailable')
		return undefined;
	return failure.retryAfterMs ?? 0;
}

/** What reads the event list and starts executions from it: a poll, or Svc Trigger's runner. */
export type PullContext = IPollFunctions | ITriggerFunctions;

/** A poll (it emits through `__emit`), not Svc Trigger's runner (a trigger, which emits through `emit`). */
export const isPoll = (ctx: PullContext): ctx is IPollFunctions => '__emit' in ctx;

/**
 * Svc Trigger's Run Events From: 'eventList' answers each delivery at once, in whichever n8n
 * process receives it, and the main runs the events from the service's event list.
 */
export const runsFromEventList = (ctx: Pick<IWebhookFunctions, 'getNodeParameter'>): boolean =>
	ctx.getNodeParameter('runEventsFrom', 'delivery') === 'eventList';

/**
 * Per trigger, how to wake the event-list runner of this process (a Svc Trigger running from the
 * event list, on the main): a delivery received here rings it, so that the event runs at once
 * instead of at the runner's next tick.
 */
const runnersHere = new Map<string, () => void>();

export const eventListRunners = {
	add(key: string, wake: () => void): void {
		runnersHere.set(key, wake);
	},
	remove(key: string, wake: () => void): void {
		if (runnersHere.get(key) === wake) runnersHere.delete(key);
	},
	wake(key: string): void {
		runnersHere.get(key)?.();
	},
};
