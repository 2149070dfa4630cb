/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { EventEmitter } from 'node:events';

import type { IWebhookFunctions } from 'n8n-workflow';

import { eventClaims } from '../../nodes/Svc/trigger/exactlyOnce/eventClaims';
import {
	CLAIMED_EVENTS_HEADER,
	claimsReport,
	learnFromAnswer,
} from '../../nodes/Svc/trigger/webhook/claimsReport';

/** The webhook processor's side of a delivery: its Express response, as n8n relays a worker's answer into it. */
function deliveryAt(): {
	ctx: IWebhookFunctions;
	answer: (headers: Record<string, string>) => void;
} {
	let sent: Record<string, string> = {};
	const response = Object.assign(new EventEmitter(), {
		getHeader: (name: string): string | undefined => sent[name.toLowerCase()],
	});
	return {
		ctx: { getResponseObject: () => response } as unknown as IWebhookFunctions,
		answer: (headers) => {
			sent = headers;
			response.emit('finish');
		},
	};
}

describe("a worker's answer names what ran there; the webhook processor learns it", () => {
	it('the events whose claims stood on the worker are taken at the processor once the answer has gone out', () => {
		const now = Date.now();
		// Claims that stood on the worker (as learned or made there).
		eventClaims.learn('workflow worker-1', ['evt_a,1', 'evt_b'], now);
		const report = claimsReport('workflow worker-1', now);
		expect(report[CLAIMED_EVENTS_HEADER]).toBe('evt_b,evt_a%2C1');

		const delivery = deliveryAt();
		learnFromAnswer(delivery.ctx, 'workflow processor-1');
		expect(eventClaims.has('workflow processor-1', 'evt_b', now)).toBe(false);
		delivery.answer(report);
		expect(eventClaims.has('workflow processor-1', 'evt_b', Date.now())).toBe(true);
		expect(eventClaims.has('workflow processor-1', 'evt_a,1', Date.now())).toBe(true);
	});

	it('nothing to tell, no header; an answer without one, or with one not written here, teaches nothing', () => {
		expect(claimsReport('workflow with no claims', Date.now())).toEqual({});
		const plain = deliveryAt();
		learnFromAnswer(plain.ctx, 'workflow processor-2');
		plain.answer({});
		const garbled = deliveryAt();
		learnFromAnswer(garbled.ctx, 'workflow processor-2');
		garbled.answer({ [CLAIMED_EVENTS_HEADER]: '%E0%A4%A' });
		expect(eventClaims.stoodHere('workflow processor-2', Date.now(), 10)).toEqual([]);
	});

	it('the newest claims, as many as fit in 1,500 bytes, so that a balancer in front keeps the answer', () => {
		const now = Date.now();
		const ids = Array.from({ length: 200 }, (_, index) => `evt_${String(index).padStart(26, '0')}`);
		eventClaims.learn('workflow worker-2', ids, now);
		const header = claimsReport('workflow worker-2', now)[CLAIMED_EVENTS_HEADER];
		expect(header.length).toBeLessThanOrEqual(1_500);
		const named = header.split(',');
		expect(named.length).toBeGreaterThan(40);
		expect(named).toEqual([...ids].reverse().slice(0, named.length));
	});
});
