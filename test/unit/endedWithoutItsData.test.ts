import type { ExecutionStatus, IRun } from 'n8n-workflow';
import { createRunExecutionData } from 'n8n-workflow';

import { endedWithoutItsData } from '../../nodes/Svc/trigger/pull/emittedRun';

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
