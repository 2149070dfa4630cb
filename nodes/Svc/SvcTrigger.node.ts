import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { svcApiTest } from './methods/credentialTest';
import { eventsPerExecutionProperties } from './shared/batching';
import { eventKindProperties, eventKindsSubtitle, WEBHOOK_ROUTE } from './shared/subscription';
import { startEventListRunner } from './trigger/pull/eventListRunner';
import { runPulledEvents } from './trigger/pull/pulledRun';
import { receiveDelivery, runDelivery } from './trigger/webhook/delivery';
import { checkExists, create, remove, storedSubscription } from './trigger/webhook/lifecycle';

export class SvcTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Svc Trigger',
		// "<action node>Trigger": n8n's node panel lists this trigger under Svc, beside its actions, and
		// shows this description for Svc (editor-ui's generateMergedNodesAndActions, 2.41.1).
		name: 'svcTrigger',
		icon: { light: 'file:svc.svg', dark: 'file:svc.dark.svg' },
		group: ['trigger'],
		// 1.1 behaves as 1. n8n evaluates an expression on every request to a start node at version 1
		// (its Webhook node's old binary option), and under the vm expression engine an expression
		// costs a V8 isolate per delivery. Workflows saved with 1 keep working. 1 is listed last: n8n
		// 1.x's installer stores the list's last entry as the node's latest version in an integer
		// column, which PostgreSQL refuses for 1.1 and the install fails; the editor takes the highest.
		version: [1.1, 1],
		defaultVersion: 1.1,
		subtitle: eventKindsSubtitle(WEBHOOK_ROUTE),
		description:
			'Manage leads, consent, conversations and campaigns, or start a workflow when the service sends an event such as lead.created to this n8n: needs a public https URL (without one, use Svc Pull)',
		// n8n's publish dialog says this instead of its generic "listen for events from Svc".
		activationMessage:
			"The service now sends the chosen events to this n8n's public webhook URL, and each one starts an execution.",
		defaults: { name: 'Svc Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'svcApi', required: true, testedBy: 'svcApiTest' }],
		// 'responseNode': execute() answers the delivery once n8n has stored its execution.
		webhooks: [
			{ name: 'default', httpMethod: 'POST', responseMode: 'responseNode', path: 'webhook' },
		],
		// n8n shows its generic "Pull in events from Svc" otherwise. Its editor's words: 2.41 says
		// publish, 1.x activate; its canvas button is "Execute workflow" in both.
		triggerPanel: {
			header: 'Starts the workflow on each event the service sends to this n8n',
			executionsHelp: {
				inactive:
					'<b>While building your workflow</b>, click <i>Execute workflow</i> on the canvas, then make an event happen in the service (for lead.created, create a lead): it runs the whole workflow here. <i>Execute step</i> in this panel runs this trigger alone.<br /><br /><b>Once you are happy with it</b>, publish the workflow (n8n 1.x: activate it). Then each event starts one execution, or a burst a few in batches (Events per Execution), shown in the Executions list, not here.',
				active:
					'<b>While building your workflow</b>, click <i>Execute workflow</i> on the canvas, then make an event happen in the service (for lead.created, create a lead): it runs the whole workflow here. <i>Execute step</i> in this panel runs this trigger alone.<br /><br /><b>Your workflow is published</b> (n8n 1.x: active): each event also starts one execution, or a burst a few in batches (Events per Execution), shown in the Executions list, not here.',
			},
			activationHint:
				'Once you have finished building your workflow, publish it (n8n 1.x: activate it) to run it on every event.',
		},
		properties: [
			{
				// Said where the trigger is set up: n8n cannot tell a node the address it runs on.
				displayName:
					"The service sends events only to an https Production URL it can reach: set n8n's WEBHOOK_URL to n8n's public https address. Without a public URL, use Svc Pull Trigger instead.",
				name: 'publicUrlNotice',
				type: 'notice',
				default: '',
			},
			...eventKindProperties(
				{ description: 'The events that start the workflow', required: true },
				WEBHOOK_ROUTE,
			),
			...eventsPerExecutionProperties(),
			{
				displayName: 'Run Events From',
				name: 'runEventsFrom',
				type: 'options',
				// Where events run is the workflow builder's choice, never an item's.
				noDataExpression: true,
				options: [
					{
						name: 'Each Delivery',
						value: 'delivery',
						description:
							'The n8n process that receives a delivery runs it, answering from its execution: for one n8n',
					},
					{
						name: 'The Event List (Queue Mode)',
						value: 'eventList',
						description:
							"Deliveries are only answered; the main runs the events from the service's event list: for queue mode",
					},
				],
				default: 'delivery',
				description:
					'Where executions start. In queue mode pick The Event List: bursts in batches, no event lost with a worker.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Include Headers',
						name: 'includeHeaders',
						type: 'boolean',
						default: false,
						description: "Whether to add the delivery's HTTP headers to the output",
					},
				],
			},
		],
	};

	methods = { credentialTest: { svcApiTest } };

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await checkExists.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await create.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await remove.call(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveDelivery.call(this);
	}

	// On the main, where n8n publishes the workflow: the event-list runner, when set to run from it.
	trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const subscription = storedSubscription(this.getWorkflowStaticData('node'));
		return Promise.resolve(startEventListRunner(this, subscription?.createdAt));
	}

	// n8n runs a trigger's execute() inside the execution, with what webhook() returned or the
	// event-list runner emitted (its items name their pull).
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const meta = this.getInputData()[0]?.json.meta as IDataObject | undefined;
		if (typeof meta?.pull_id === 'string') return await runPulledEvents.call(this);
		return await runDelivery.call(this);
	}
}
