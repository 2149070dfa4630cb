/** What one node did in an execution fetched with its data: its items, or its error. */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { ExecutionRecord } from './executions';

/** The items a node's last run put on one output of an execution fetched with its data (output 0 unless told; 1 is an error output). */
export function nodeOutput(
	execution: ExecutionRecord,
	nodeName: string,
	output = 0,
): INodeExecutionData[] {
	const tasks = execution.data?.resultData.runData[nodeName];
	return tasks?.[tasks.length - 1]?.data?.main[output] ?? [];
}

export function nodeError(execution: ExecutionRecord, nodeName: string): IDataObject | undefined {
	const tasks = execution.data?.resultData.runData[nodeName];
	return tasks?.[tasks.length - 1]?.error as IDataObject | undefined;
}

/**
 * The executions whose trigger `triggerNode` put the lead `leadId`'s event out: a test finds a
 * lead's run so, not by its place in the list (a retried delivery can add a run that stopped at
 * the trigger).
 */
export function runsOfLead(
	executions: ExecutionRecord[],
	triggerNode: string,
	leadId: string,
): ExecutionRecord[] {
	return executions.filter(
		(execution) =>
			(nodeOutput(execution, triggerNode)[0]?.json.data as IDataObject | undefined)?.id === leadId,
	);
}
