import type {
	IDataObject,
	IExecuteFunctions,
	IExecuteResponsePromiseData,
	INodeExecutionData,
} from 'n8n-workflow';

import { runDelivery } from '../../nodes/Svc/trigger/delivery';
import { noteActivationBegun, noteDeliveryReceived } from '../../nodes/Svc/trigger/startupSweep';

/** The item a run passed on for `eventId`. */
const eventItem = (eventId: string): unknown =>
	expect.objectContaining({ json: expect.objectContaining({ id: eventId }) as unknown });

/** n8n's record of processed values for one workflow, in 'entries' mode. */
const recorded = new Set<string>();

/**
 * The execution n8n 1.x starts for one delivery: its context has no onExecutionFinish. Returns
 * what the execution answered and what the trigger passed on.
 */
async function runV1Delivery(
	eventId: string,
): Promise<{ answers: number[]; passedOn: INodeExecutionData[] }> {
	const answers: number[] = [];
	const ctx = {
		getInputData: () => [
			{ json: { id: eventId, type: 'lead.created', meta: { receipt_id: `receipt-${eventId}` } } },
		],
		getMode: () => 'webhook',
		getWorkflow: () => ({ id: 'wf-startup' }),
		getNode: () => ({ name: 'Svc Trigger' }),
		getExecutionId: () => `execution-${eventId}`,
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

it('n8n 1.x: a delivery run by the process that received it before n8n began activating workflows is answered 503 and runs nothing; a queue worker and a started process answer 200 and run it', async () => {
	// A queue worker runs deliveries that another process received: n8n does not sweep there.
	expect(await runV1Delivery('evt_on_worker')).toEqual({
		answers: [200],
		passedOn: [eventItem('evt_on_worker')],
	});

	// A regular main that has just started: it receives and runs, and has not swept yet.
	noteDeliveryReceived();
	expect(await runV1Delivery('evt_while_starting')).toEqual({ answers: [503], passedOn: [] });

	// n8n began activating workflows, which it does only after the sweep: the service's next
	// attempt is answered 200 and runs.
	noteActivationBegun();
	expect(await runV1Delivery('evt_while_starting')).toEqual({
		answers: [200],
		passedOn: [eventItem('evt_while_starting')],
	});
});
