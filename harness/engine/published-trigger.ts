import { TriggerContext } from 'n8n-core';
import { UnexpectedError } from 'n8n-workflow';
import type {
	IExecuteResponsePromiseData,
	INode,
	INodeExecutionData,
	INodeType,
	IRun,
	ITriggerFunctions,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';

import { nextExecutionId, runExecution } from './run-workflow';
import type { RecordedResponse } from './webhook-http';

/** The trigger's trigger() as n8n's main calls it at publishing, with every execution it emitted. */
export interface PublishedTrigger {
	/** What the trigger node passed on in each execution that ended well, in end order. */
	readonly runs: INodeExecutionData[][];
	/** Errors of executions that failed, and those saved as failed executions (`saveFailedExecution`). */
	readonly failed: Error[];
	/** Unpublishing: n8n calls the closeFunction trigger() returned, if any. */
	close(): Promise<void>;
	/** Whether trigger() returned a closeFunction: something runs until unpublished. */
	readonly listens: boolean;
}

/** What n8n's main does when it publishes a workflow with a trigger() node. */
export async function publishTrigger(
	workflow: Workflow,
	node: INode,
	nodeType: INodeType,
	baseData: IWorkflowExecuteAdditionalData,
): Promise<PublishedTrigger> {
	const runs: INodeExecutionData[][] = [];
	const failed: Error[] = [];
	// n8n resolves a run's end with the run; one that failed in a node names that node.
	const endedAs = (status: IRun['status']) =>
		({ status, data: { resultData: { runData: {}, lastNodeExecuted: node.name } } }) as IRun;
	const emit: ITriggerFunctions['emit'] = (data, answer, ended) => {
		const relay = (response: RecordedResponse) =>
			answer?.resolve(response as IExecuteResponsePromiseData);
		void runExecution(workflow, node, baseData, 'trigger', data, nextExecutionId(), relay).then(
			(passedOn) => {
				runs.push(passedOn);
				ended?.resolve(endedAs('success'));
			},
			(error: unknown) => {
				failed.push(error as Error);
				answer?.reject(error as Error);
				ended?.resolve(endedAs('error'));
			},
		);
	};
	const context = new TriggerContext(
		workflow,
		node,
		baseData,
		'trigger',
		'activate',
		emit,
		(error) => void failed.push(error),
		(error) => void failed.push(error),
	);
	const response = await workflow.expression.withIsolate(async () => {
		if (nodeType.trigger === undefined) throw new UnexpectedError('The node has no trigger method');
		return await nodeType.trigger.call(context);
	});
	return {
		runs,
		failed,
		listens: response?.closeFunction !== undefined,
		close: async () => await response?.closeFunction?.(),
	};
}
