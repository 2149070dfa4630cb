import type { INodeProperties } from 'n8n-workflow';

/** The most events one execution gets in batches, on either trigger. */
export const BATCH_SIZE_MAX = 1_000;

/** What differs between the two triggers' batch fields: how events come together, and what happens to more. */
export interface BatchTexts {
	/** Completes "The events that … run together as the items of one execution". */
	together: string;
	/** Batch Size's description after "The most events one execution gets (1 to N).", without its final period. */
	more: string;
}

/**
 * Events per Execution (One, the default, or Many) and Batch Size, as both triggers show them: the
 * same names and values, so a person who knows one knows the other.
 */
export function eventsPerExecutionProperties(texts: BatchTexts): INodeProperties[] {
	return [
		{
			displayName: 'Events per Execution',
			name: 'eventsPerExecution',
			type: 'options',
			options: [
				{
					name: 'Many (Batches)',
					value: 'batch',
					description: `The events that ${texts.together} run together as the items of one execution, Batch Size at most: at the default 100, a 10,000-lead import costs 100 executions, not 10,000. A node that fails on one item fails the execution with all its events: Retry it, or set that node's On Error to continue.`,
				},
				{
					name: 'One',
					value: 'one',
					description:
						'Each event starts an execution of its own, and each counts against your n8n plan',
				},
			],
			default: 'one',
			description:
				'Each event is the same item either way: switching changes no node after the trigger',
		},
		{
			displayName: 'Batch Size',
			name: 'batchSize',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: BATCH_SIZE_MAX },
			default: 100,
			displayOptions: { show: { eventsPerExecution: ['batch'] } },
			description: `The most events one execution gets (1 to ${BATCH_SIZE_MAX}). ${texts.more}.`,
		},
	];
}
