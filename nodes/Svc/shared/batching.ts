import type { INodeProperties } from 'n8n-workflow';

/** The most events one execution gets in batches, on either trigger. */
export const BATCH_SIZE_MAX = 1_000;

/**
 * Events per Execution (One, the default, or Many) and Batch Size, as both triggers show them: the
 * same names, values and words, so a person who knows one knows the other. n8n's option list shows
 * two lines of a description: each says in one line what it costs and when to pick it.
 */
export function eventsPerExecutionProperties(): INodeProperties[] {
	return [
		{
			displayName: 'Events per Execution',
			name: 'eventsPerExecution',
			type: 'options',
			options: [
				{
					name: 'Many (Batches)',
					value: 'batch',
					description:
						'Up to Batch Size events per execution, 100 for 10,000 leads at 100: for imports and bursts',
				},
				{
					name: 'One',
					value: 'one',
					description:
						'One execution per event, each counted by your n8n plan: for a few events at a time',
				},
			],
			default: 'one',
			description:
				'How many events each execution gets. The nodes after the trigger get the same items either way.',
		},
		{
			displayName: 'Batch Size',
			name: 'batchSize',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: BATCH_SIZE_MAX },
			default: 100,
			displayOptions: { show: { eventsPerExecution: ['batch'] } },
			description: `At most this many events per execution (1 to ${BATCH_SIZE_MAX}). A node that fails on one of them fails the execution.`,
		},
	];
}
