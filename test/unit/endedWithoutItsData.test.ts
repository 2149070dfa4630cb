import type { ExecutionStatus, INode, IRun } from 'n8n-workflow';
import { createRunExecutionData, NodeOperationError } from 'n8n-workflow';

import { answerFromRunData, endedWithoutItsData } from '../../nodes/Svc/trigger/pull/emittedRun';

const node: INode = {
	id: 'trigger',
	name: 'On Lead Created (pull)',
	type: 'n8n-nodes-svc.svcPullTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** An ended run as n8n hands it to the trigger that started it: its status, and the last node it names. */
function run(status: ExecutionStatus, lastNodeExecuted?: string): IRun {
	return {
		data: createRunExecutionData({ resultData: { runData: {}, lastNodeExecuted } }),
		finished: status === 'success',
		mode: 'trigger',
		startedAt: new Date(),
		status,
		storedAt: 'db',
	};
}

describe('endedWithoutItsData: a run n8n ended as it ends the run of a queue-mode worker that died (n8n 2.x)', () => {
	it('is a failed or crashed run that names no node it ran', () => {
		expect(endedWithoutItsData(run('error'))).toBe(true);
		expect(endedWithoutItsData(run('crashed'))).toBe(true);
	});

	it('is not a run that failed in a node, nor one that succeeded, waits or was stopped, nor no run', () => {
		expect(endedWithoutItsData(run('error', 'On Lead Created (pull)'))).toBe(false);
		expect(endedWithoutItsData(run('success'))).toBe(false);
		expect(endedWithoutItsData(run('waiting'))).toBe(false);
		expect(endedWithoutItsData(run('canceled'))).toBe(false);
		expect(endedWithoutItsData(undefined)).toBe(false);
	});
});

describe('answerFromRunData: what a run that ended before its answer arrived tells the poll', () => {
	const trigger = 'On Lead Created (pull)';
	/** A run whose trigger step ran, with or without an error. */
	function withTriggerStep(status: ExecutionStatus, error?: string): IRun {
		const ended = run(status, trigger);
		ended.data.resultData.runData[trigger] = [
			{
				startTime: 0,
				executionTime: 1,
				executionIndex: 0,
				source: [],
				...(error === undefined
					? { data: { main: [[{ json: { id: 'evt_1' } }]] } }
					: { error: new NodeOperationError(node, error) }),
			},
		];
		return ended;
	}

	it('claimed, in another process, when its trigger step ended without an error (its claims stood)', () => {
		expect(answerFromRunData(withTriggerStep('success'), trigger)).toEqual({
			claimed: true,
			here: false,
		});
		// A node after the trigger failed, or n8n marked the run crashed after the trigger step.
		expect(answerFromRunData(withTriggerStep('error'), trigger)).toEqual({
			claimed: true,
			here: false,
		});
		expect(answerFromRunData(withTriggerStep('crashed'), trigger)).toEqual({
			claimed: true,
			here: false,
		});
	});

	it('nothing when the trigger step failed or never ran: the events are read again', () => {
		expect(answerFromRunData(withTriggerStep('error', 'could not be recorded'), trigger)).toBe(
			undefined,
		);
		expect(answerFromRunData(run('crashed', trigger), trigger)).toBe(undefined);
		expect(answerFromRunData(run('error'), trigger)).toBe(undefined);
		// Another node's step says nothing of this trigger's claim.
		expect(answerFromRunData(withTriggerStep('success'), 'Another trigger')).toBe(undefined);
	});
});
