import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ClaimOptions, ClaimOutcome, ProcessedRecord } from './eventClaims';
import { CLAIMED_EVENTS_MAX_ENTRIES, eventClaims } from './eventClaims';

/**
 * Claims are per workflow: Svc Trigger and Svc Pull Trigger in one workflow share one record, so
 * an event that reaches the workflow both ways (a delivery and a pull) runs once.
 */
export function claimScope(
	ctx: Pick<IWebhookFunctions | IExecuteFunctions | IPollFunctions, 'getWorkflow'>,
): string {
	return `workflow ${ctx.getWorkflow().id}`;
}

/** The workflow's row in n8n's record of processed values ('workflow' scope), through this execution. */
function processedRecord(ctx: IExecuteFunctions): ProcessedRecord {
	return {
		async checkAndRecord(values) {
			const { processed } = await ctx.helpers.checkProcessedAndRecord(values, 'workflow', {
				mode: 'entries',
				maxEntries: CLAIMED_EVENTS_MAX_ENTRIES,
			});
			return new Set(processed.map(String));
		},
	};
}

/**
 * Claims every event at once (one record write for them all, then one settle, none for the
 * record's sole writer), in the order given. `claimant` names the claim: the receipt or pull id the items carry, which a Retry carries
 * too (an execution id for items from before those ids). A Retry
 * (`mode` 'retry') is decided by n8n's record alone (see EventClaims.claim), as is a run with
 * `askRecord`. `soleWriter`: see ClaimOptions.
 */
export async function claimEvents(
	ctx: IExecuteFunctions,
	eventIds: string[],
	claimant: string,
	{ soleWriter = false, askRecord = false }: ClaimOptions = {},
): Promise<ClaimOutcome[]> {
	const scope = claimScope(ctx);
	const record = processedRecord(ctx);
	const now = Date.now();
	askRecord ||= ctx.getMode() === 'retry';
	return await Promise.all(
		eventIds.map(
			async (eventId) =>
				await eventClaims.claim(scope, eventId, claimant, record, now, { askRecord, soleWriter }),
		),
	);
}

/** n8n's words (DeduplicationError, 1.x and 2.x) when the workflow's row was first saved in another mode. */
const ROW_IN_ANOTHER_MODE = /incompatible setting of the .Keep Items Where. parameter/;

/**
 * The trigger step's error when its claims could not be recorded; the execution keeps its events,
 * as `whatIsKept` says. A row another node saved in another mode fails every claim until a person
 * clears it, so that cause gets its own fix.
 */
export function claimFailed(
	ctx: IExecuteFunctions,
	error: unknown,
	whatIsKept: string,
): NodeOperationError {
	const cause = error instanceof Error ? error : new Error(String(error));
	const description = ROW_IN_ANOTHER_MODE.test(cause.message)
		? `${whatIsKept} n8n keeps the Svc triggers' claims in its record of processed values for this workflow, and another node saved that record in another mode: a Remove Duplicates node that has or had Scope set to Workflow and Keep Items Where other than Value Is New. Set that node's Scope to Node (if no node has Workflow now, skip this), clear the workflow's record once (Remove Duplicates, Clear Deduplication History, Scope: Workflow), then retry this execution.`
		: `${whatIsKept} Retry this execution once the other n8n processes are less busy.`;
	return new NodeOperationError(ctx.getNode(), cause, { description });
}

/**
 * Marks the error of a trigger step whose claims all stood and that holds its events for a
 * person's Retry (passOnClaimed): n8n keeps an error's context in the stored run, so the process
 * that started the run can tell it from a claim that failed when no answer reached it.
 */
const HELD_FOR_RETRY = 'svcEventsHeldForRetry';

/** Whether a stored trigger step's error is passOnClaimed's hold: its claims stood. */
export function heldForRetry(error: unknown): boolean {
	const context = (error as { context?: IDataObject } | undefined)?.context;
	return context?.[HELD_FOR_RETRY] === true;
}

/** A run n8n ended without its data, whose events an execution took over: its execution id if known. */
export interface LostRun {
	execution?: string;
}

/**
 * What the trigger passes on after claiming `items` (each an event, in order): the events it
 * runs, with a hint (`repeatHint`, given how many were left out) when some already ran
 * elsewhere. A run n8n started again after its process died ('rerun' outside a Retry) fails
 * instead, keeping its events for a person's Retry, since they may already have run past the
 * trigger; so does a run that `tookOver` the events of a run n8n ended without its data and finds
 * that run's claim. A Retry runs what it had claimed.
 */
export function passOnClaimed(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	outcomes: ClaimOutcome[],
	repeatHint: (repeats: number) => string,
	tookOver?: LostRun,
): INodeExecutionData[][] {
	const retry = ctx.getMode() === 'retry';
	const rerun = items
		.filter((_, index) => outcomes[index] === 'rerun' && !retry)
		.map((item) => item.json.id as string);
	if (rerun.length > 0) {
		const cause =
			tookOver === undefined
				? 'n8n started this execution again after the process running it stopped'
				: `n8n ended the execution that had ${items.length === 1 ? 'this event' : 'these events'}${tookOver.execution === undefined ? '' : ` (${tookOver.execution})`} without its data when the worker running it stopped, and this execution took ${items.length === 1 ? 'it' : 'them'} over`;
		const held = new NodeOperationError(
			ctx.getNode(),
			`${cause}, so event ${rerun.join(', ')} may already have run past the trigger`,
			{
				description:
					'Nothing after the trigger ran in this attempt. Check what the nodes after the trigger did for this event; if it did not finish, Retry this execution to run it.',
			},
		);
		held.context[HELD_FOR_RETRY] = true;
		throw held;
	}
	const passed = items.filter(
		(_, index) => outcomes[index] === 'first' || (retry && outcomes[index] === 'rerun'),
	);
	if (passed.length < items.length)
		ctx.addExecutionHints({
			message: repeatHint(items.length - passed.length),
			location: 'outputPane',
		});
	return [passed];
}
