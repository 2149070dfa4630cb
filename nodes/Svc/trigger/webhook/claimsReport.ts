/**
 * In queue mode a webhook processor never sees a claim: workers run the executions that make them.
 * So each answer a worker sends back through the processor names, in a header, the events whose
 * claims stood there most recently, and the processor reads it as the answer goes out. A copy of
 * such an event that reaches the processor later (the service sending again after a lost answer,
 * or after the other processor was killed) is then answered without an execution.
 */
import type { IWebhookFunctions } from 'n8n-workflow';

import { eventClaims } from '../exactlyOnce/eventClaims';

export const CLAIMED_EVENTS_HEADER = 'x-svc-claimed-events';

/**
 * Room the list may take in an answer: nginx, a usual balancer in front of webhook processors,
 * refuses an upstream's answer whose headers exceed its 4 KB buffer.
 */
const REPORT_BYTES_MAX = 1_500;

/** The header naming the events whose claims stood in this process most recently, if any. */
export function claimsReport(scope: string, now: number): Record<string, string> {
	const named: string[] = [];
	let bytes = 0;
	for (const eventId of eventClaims.stoodHere(scope, now, REPORT_BYTES_MAX / 2)) {
		const encoded = encodeURIComponent(eventId);
		bytes += encoded.length + 1;
		if (bytes > REPORT_BYTES_MAX) break;
		named.push(encoded);
	}
	return named.length > 0 ? { [CLAIMED_EVENTS_HEADER]: named.join(',') } : {};
}

/** Once the delivery's answer has gone out, takes the claims its header names as known here. */
export function learnFromAnswer(ctx: IWebhookFunctions, scope: string): void {
	const response = ctx.getResponseObject();
	response.once('finish', () => {
		const header = response.getHeader(CLAIMED_EVENTS_HEADER);
		if (typeof header !== 'string' || header === '') return;
		try {
			eventClaims.learn(scope, header.split(',').map(decodeURIComponent), Date.now());
		} catch {
			// Not a list this package wrote: nothing to learn.
		}
	});
}
