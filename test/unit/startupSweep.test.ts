import type {
	IDataObject,
	IExecuteFunctions,
	IExecuteResponsePromiseData,
	INodeExecutionData,
} from 'n8n-workflow';

import { runDelivery } from '../../nodes/Svc/trigger/delivery';
import { noteActivationBegun, noteReceipt } from '../../nodes/Svc/trigger/startupSweep';

/** The item a run passed on for `eventId`. */
const eventItem = (eventId: string): unknown =>
	expect.objectContaining({ json: expect.objectContaining({ id: eventId }) as unknown });

/** n8n's record of processed values for one workflow, in 'entries' mode. */
const recorded = new Set<string>();

/**
 * The execution n8n 1.x starts for one delivery, the one `receiptId` names: its context has no
 * onExecutionFinish. Returns what the execution answered and what the trigger passed on.
 */
async function runV1Delivery(
	eventId: string,
	receiptId: string,
): Promise<{ answers: number[]; passedOn: INodeExecutionData[] }> {
	const answers: number[] = [];
	const ctx = {
		getInputData: () => [
			{ json: { id: eventId, type: 'lead.created', meta: { receipt_id: receiptId } } },
		],
		getMode: () => 'webhook',
		getWorkflow: () => ({ id: 'wf-startup' }),
		getNode: () => ({ name: 'Svc Trigger' }),
		getExecutionId: () => `execution-${receiptId}`,
		addExecutionHints: () => undefined,
		sendResponse: (response: IExecuteResponsePromiseData) => {
			answers.push((response as IDataObject).statusCode as number);
			return Promise.resolve();
		},
		helpers: {
			checkProcessedAndRecord: (values: string[]) => {
				const processed = values.filter((value) => recorded.has(value));
				values.forEach((value) => recorded.add(value));
				return Promise.resolve({
					new: values.filter((value) => !processed.includes(value)),
					processed,
				});
			},
		},
	} as unknown as IExecuteFunctions;
	const running = runDelivery.call(ctx);
	// The claim settles for 2 s before it stands.
	await jest.advanceTimersByTimeAsync(2_000);
	const [passedOn] = await running;
	return { answers, passedOn };
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

it('n8n 1.x: a delivery this process received before n8n began activating workflows is answered 503 by its execution and runs nothing; any other answers 200 and runs', async () => {
	// Received by another process (a queue worker runs it; n8n sweeps nothing in queue mode), or
	// queued by a dead process and started again by this one: no sweep takes it.
	expect(await runV1Delivery('evt_elsewhere', 'receipt-1')).toEqual({
		answers: [200],
		passedOn: [eventItem('evt_elsewhere')],
	});

	// Received by a regular main that has just started and has not swept yet: its execution may
	// be swept, before it answers or after.
	noteReceipt('receipt-2');
	noteReceipt('receipt-3');
	expect(await runV1Delivery('evt_while_starting', 'receipt-2')).toEqual({
		answers: [503],
		passedOn: [],
	});
	noteActivationBegun();
	expect(await runV1Delivery('evt_received_while_starting', 'receipt-3')).toEqual({
		answers: [503],
		passedOn: [],
	});

	// n8n began activating workflows, which it does only after the sweep: the service's next
	// attempts are received now, answered 200 and run.
	for (const [eventId, receiptId] of [
		['evt_while_starting', 'receipt-4'],
		['evt_received_while_starting', 'receipt-5'],
	]) {
		noteReceipt(receiptId);
		expect(await runV1Delivery(eventId, receiptId)).toEqual({
			answers: [200],
			passedOn: [eventItem(eventId)],
		});
	}
});
