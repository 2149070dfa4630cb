/**
 * Svc Trigger set to run its events from the event list: the main that holds the published
 * workflow reads the service's event list, as Svc Pull Trigger's poll does, and starts the events
 * in executions (batches in Many), while every n8n process that receives a delivery only verifies
 * and answers it (receiveDelivery). In queue mode that is the one way n8n leaves a node to batch
 * deliveries that reach several webhook processors, and to hear when a worker loses a run: only
 * the process that emitted an execution hears how it ended (emittedRun.ts).
 */
import type { ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';

import { settlesWithin } from '../../shared/waits';
import { warnAtMostEveryMinute } from '../../shared/warnings';
import { eventListRunners, runsFromEventList } from '../eventList';
import { triggerKey } from '../exactlyOnce/executionSlots';
import { pollEvents } from './poll';
import { startPositionAt } from './pullPosition';

/**
 * How often the runner reads the event list when no delivery rings it: the latest a delivery
 * answered in another process (a queue-mode webhook processor) starts on the main.
 */
export const RUNNER_TICK_MS = 1_000;

/**
 * Starts the runner where n8n publishes the workflow (mode 'trigger', on the main), when Run Events
 * From is the event list; elsewhere it does nothing. A first start reads from `deliveredSince`
 * (when the subscription was created, which n8n does before it calls trigger()). Unpublishing
 * stops it after the read under way.
 */
export function startEventListRunner(
	ctx: ITriggerFunctions,
	deliveredSince: string | undefined,
): ITriggerResponse {
	if (ctx.getMode() !== 'trigger' || !runsFromEventList(ctx)) return {};
	if (deliveredSince !== undefined)
		startPositionAt(ctx.getWorkflowStaticData('node'), deliveredSince, Date.now());
	const key = triggerKey(ctx);
	let open = true;
	let ring = (): void => {};
	const wake = (): void => ring();
	eventListRunners.add(key, wake);
	const run = async (): Promise<void> => {
		while (open) {
			// Made before the read: a delivery during it makes the next read start at once.
			const rung = new Promise<void>((resolve) => (ring = resolve));
			try {
				await pollEvents.call(ctx);
			} catch (error) {
				warnAtMostEveryMinute(
					ctx,
					`${key} event list`,
					Date.now(),
					() =>
						`Svc Trigger "${ctx.getNode().name}" in workflow ${ctx.getWorkflow().id ?? ''} could not read the service's event list (${(error as Error).message}); it reads again in a second, and the events wait there`,
				);
			}
			await settlesWithin(rung, RUNNER_TICK_MS);
		}
	};
	void run();
	return {
		closeFunction: () => {
			open = false;
			eventListRunners.remove(key, wake);
			ring();
			return Promise.resolve();
		},
	};
}
