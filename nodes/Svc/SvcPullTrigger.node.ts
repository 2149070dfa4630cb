import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { EVENT_RETENTION_DAYS } from './contract';
import { svcApiTest } from './methods/credentialTest';
import { eventsPerExecutionProperties } from './shared/batching';
import { eventKindProperties, eventKindsSubtitle, PULL_ROUTE } from './shared/subscription';
import { pollEvents } from './trigger/pull/poll';
import { runPulledEvents } from './trigger/pull/pulledRun';

export class SvcPullTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Svc Pull Trigger',
		name: 'svcPullTrigger',
		icon: { light: 'file:svc-pull.svg', dark: 'file:svc-pull.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: eventKindsSubtitle(PULL_ROUTE),
		// n8n's panel lists a trigger with an app's actions only under the name "<app>Trigger" (Svc
		// Trigger's); Svc Pull's own details page then says it has no actions: this says where they are.
		description:
			'Start a workflow on Svc events such as lead.created, read from the service on a schedule: needs no public URL. The Svc entry lists every action (leads, conversations, campaigns) and the instant triggers, for n8n at a public https URL',
		// n8n's publish dialog says this instead of its generic "regularly check Svc Pull for events".
		activationMessage:
			'This n8n now reads new Svc events of the chosen kinds at every poll (Poll Times) and starts executions for them; the service needs no way to reach this n8n.',
		defaults: { name: 'Svc Pull Trigger' },
		// n8n adds the Poll Times setting (every minute at the most often).
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'svcApi', required: true, testedBy: 'svcApiTest' }],
		triggerPanel: {
			header: 'Reads new Svc events on a schedule; the service needs no way to reach this n8n',
			executionsHelp: {
				inactive:
					'<b>While building your workflow</b>, click <i>Fetch Test Event</i>: the newest event of the chosen kinds shows here (in batches, the newest Batch Size events, oldest first, as one execution gets them). <i>Execute workflow</i> on the canvas runs the whole workflow with it.<br /><br /><b>Once you are happy with it</b>, publish the workflow (n8n 1.x: activate it). At every poll it then reads the events created since the last one and runs them, one execution per event or in batches (Events per Execution), shown in the Executions list, not here.',
				active:
					'<b>While building your workflow</b>, click <i>Fetch Test Event</i>: the newest event of the chosen kinds shows here (in batches, the newest Batch Size events, oldest first, as one execution gets them). <i>Execute workflow</i> on the canvas runs the whole workflow with it.<br /><br /><b>Your workflow is published</b> (n8n 1.x: active): at every poll it reads the events created since the last one and runs them, one execution per event or in batches (Events per Execution), shown in the Executions list, not here.',
			},
			activationHint:
				'Once you have finished building your workflow, publish it (n8n 1.x: activate it) to read new events at every poll.',
		},
		properties: [
			...eventKindProperties(
				{ description: 'The events that start the workflow', required: true },
				PULL_ROUTE,
			),
			{
				displayName: 'Start From',
				name: 'startFrom',
				type: 'options',
				options: [
					{
						name: 'When First Published',
						value: 'now',
						description: 'Events created after the workflow is first published',
					},
					{
						name: 'A Chosen Time',
						value: 'time',
						description: `Events created after a time, up to ${EVENT_RETENTION_DAYS} days back`,
					},
				],
				default: 'now',
				description:
					'Where the first poll starts. Later polls go on where the last one stopped, also after n8n was down or the workflow unpublished, as long as the service keeps the events.',
			},
			{
				displayName: 'Start Time',
				name: 'startTime',
				type: 'dateTime',
				default: '',
				required: true,
				displayOptions: { show: { startFrom: ['time'] } },
				description: 'Events created after this time start the workflow, oldest first',
			},
			...eventsPerExecutionProperties(),
		],
	};

	methods = { credentialTest: { svcApiTest } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollEvents.call(this);
	}

	// n8n runs a poll node's execute() inside the execution, with what the poll emitted.
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runPulledEvents.call(this);
	}
}
