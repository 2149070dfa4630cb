import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import type { ClaimOutcome, ProcessedRecord } from './eventClaims';
import { CLAIMED_EVENTS_MAX_ENTRIES, eventClaims } from './eventClaims';

/**
 * Claims are per workflow: Svc Trigger and Svc Pull Trigger in one workflow share one record, so
 * an event that reaches the workflow both ways (a delivery and a pull) runs once.
 */
export function claimScope(ctx: IWebhookFunctions | IExecuteFunctions): string {
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
 * Claims every event at once (one record write for them all, then one settle), in the order
 * given. `claimant` names the claim: an execution id, or the pull id a Retry carries. A Retry
 * (`mode` 'retry') is decided by n8n's record alone (see EventClaims.claim).
 */
export async function claimEvents(
	ctx: IExecuteFunctions,
	eventIds: string[],
	claimant: string,
	settleMs?: number,
): Promise<ClaimOutcome[]> {
	const scope = claimScope(ctx);
	const record = processedRecord(ctx);
	const now = Date.now();
	const askRecord = ctx.getMode() === 'retry';
	return await Promise.all(
		eventIds.map(
			async (eventId) =>
				await eventClaims.claim(scope, eventId, claimant, record, now, { askRecord, settleMs }),
		),
	);
}
