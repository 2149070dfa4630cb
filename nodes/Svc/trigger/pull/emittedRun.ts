/**
 * One execution the poll starts: its answer, its end, and, when n8n ends it without its data (a
 * queue-mode worker died), the same events in a new execution under the same pull id.
 */
import type {
	IDataObject,
	IExecuteResponsePromiseData,
	IRun,
	ITriggerFunctions,
} from 'n8n-workflow';

import type { EventEnvelope } from '../../contract';
import { heldForRetry } from '../exactlyOnce/claimRecord';
import type { PullContext } from '../eventList';
import { isPoll, toItem } from '../eventList';

/**
 * The pull ids of the executions this process started that have not answered yet. An execution
 * that finds its own here when it claims runs in the process that polled: n8n's regular mode,
 * where every execution of the workflow runs in this one process (in queue mode a worker runs it,
 * and finds none). Its answer is the claim's outcome, so the id is dropped then (or at its end).
 */
const pullsAwaitingClaims = new Set<string>();
export const startedInThisProcess = (pullId: string): boolean => pullsAwaitingClaims.has(pullId);

/**
 * n8n 2.x ends the runs of a queue-mode worker that died with an error of its own and none of their
 * data, not even the last node they ran (n8n's `MaxStalledCountError`): such a run may have claimed
 * its events, and nothing of it can be retried. A run that failed in a node names that node.
 */
export function endedWithoutItsData(run: IRun | undefined): boolean {
	return (
		run !== undefined &&
		(run.status === 'error' || run.status === 'crashed') &&
		run.data?.resultData?.lastNodeExecuted === undefined
	);
}

/**
 * The answer of a run that ended before its answer reached this process, as its data tells it.
 * Only a run in another process can (for a queue job that a worker ran again, n8n 1.x gives only
 * its own answer when the job finishes, not the trigger step's): a trigger step that ended without
 * an error, or that holds its events for a person's Retry, had its claims stand; otherwise none is
 * given, so the poll reads the events again and a new execution's claim decides, at once instead
 * of after poll.ts's STALE_START_MS.
 */
export function answerFromRunData(run: IRun, triggerNode: string): IDataObject | undefined {
	const step = run.data?.resultData?.runData?.[triggerNode]?.[0];
	return step !== undefined && (step.error === undefined || heldForRetry(step.error))
		? { claimed: true, here: false }
		: undefined;
}

/**
 * How often the events of a run n8n ended without its data start again: a workflow that fails so
 * for another reason (n8n cannot start it) is left after these, with a warning in n8n's log.
 */
const LOST_RUN_RESTARTS_MAX = 3;

/**
 * Emits one execution of `events` named by `pullId` and returns its answer's body (undefined when
 * n8n did not store it) and its end. A run n8n ends without its data starts again under the same
 * pull id, marked `lost_run`: its claim then finds whether the lost run had claimed the events
 * (and it holds them for a person's Retry, as they may have run past the trigger there) or not
 * (and it runs them). So a worker that dies loses no event the position has passed.
 */
export function emitRun(
	ctx: PullContext,
	events: EventEnvelope[],
	pullId: string,
	restarts = 0,
	lostExecution?: string,
): { answer: Promise<IDataObject | undefined>; ended: Promise<void> } {
	const confirmation = ctx.helpers.createDeferredPromise<IExecuteResponsePromiseData>();
	const ended = ctx.helpers.createDeferredPromise<IRun | undefined>();
	const meta: IDataObject = { pull_id: pullId };
	if (restarts > 0) meta.lost_run = lostExecution === undefined ? {} : { execution: lostExecution };
	pullsAwaitingClaims.add(pullId);
	const data = [events.map((event) => toItem(event, meta))];
	// A poll emits through __emit, Svc Trigger's runner (a trigger) through emit.
	if (isPoll(ctx)) ctx.__emit(data, confirmation, ended);
	// A trigger's done promise is resolved with the run only (n8n's types say so; a poll's may be undefined).
	else ctx.emit(data, confirmation, ended as Parameters<ITriggerFunctions['emit']>[2]);
	let execution: string | undefined;
	let settleAnswer: (body: IDataObject | undefined) => void = () => {};
	const answer = new Promise<IDataObject | undefined>((resolve) => (settleAnswer = resolve));
	confirmation.promise.then(
		(response) => {
			const body = response.body as IDataObject | undefined;
			// Not the trigger step's answer but n8n's own when a queue job finishes first ({}, or a 500
			// "Workflow execution failed"): n8n sends it for a job a worker ran again, whose answer never
			// comes. The run's end tells then (answerFromRunData).
			if (typeof body?.claimed !== 'boolean') return;
			if (typeof body.execution === 'string') execution = body.execution;
			settleAnswer(body);
		},
		() => settleAnswer(undefined),
	);
	void answer.then(() => pullsAwaitingClaims.delete(pullId));
	// On the run's end, not its answer: n8n never answers for a run whose worker died first.
	const end = ended.promise
		.catch(() => undefined)
		.then((run) => {
			pullsAwaitingClaims.delete(pullId);
			if (!endedWithoutItsData(run)) {
				// A no-op once the run has answered. n8n 1.x may end a poll's run with no run at all.
				if (run !== undefined) settleAnswer(answerFromRunData(run, ctx.getNode().name));
				return;
			}
			const where = `"${ctx.getNode().name}" in workflow ${ctx.getWorkflow().id ?? ''}`;
			if (restarts >= LOST_RUN_RESTARTS_MAX) {
				ctx.logger.warn(
					`${where}: n8n ended ${restarts + 1} executions of events ${events.map((event) => event.id).join(', ')} without their data; they do not start again`,
				);
				return;
			}
			ctx.logger.warn(
				`${where}: n8n ended execution ${execution ?? '(which had not answered)'} without its data (the worker running it stopped); its ${events.length} events start again in a new execution`,
			);
			// Unanswered, the run's answer is its successor's: the position passes the events once that claimed them.
			void emitRun(ctx, events, pullId, restarts + 1, execution).answer.then(settleAnswer);
		});
	return { answer, ended: end };
}
