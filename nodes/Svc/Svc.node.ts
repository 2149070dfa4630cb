import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { buildProperties, executeOperations, operationOptions, resources } from './actions/router';
import { svcApiTest } from './methods/credentialTest';
import { searchCampaigns, searchLeads, searchThreads } from './methods/listSearch';

/**
 * The canvas shows a subtitle on one line about two node widths wide (some 28 characters in n8n
 * 2.x) and cuts the rest; the limit leaves room for wide letters.
 */
export const SUBTITLE_MAX_LENGTH = 23;

/** Shorter resource names where the full one would not fit beside the operation. */
const SUBTITLE_RESOURCE_NAMES: Record<string, string> = { webhookSubscription: 'Subscription' };

/** "Create or Update: Lead": what the user picked, in the names the node shows for it. */
function subtitleTable(): Record<string, string> {
	const table: Record<string, string> = {};
	for (const resource of resources) {
		const resourceName =
			SUBTITLE_RESOURCE_NAMES[String(resource.option.value)] ?? resource.option.name;
		for (const option of operationOptions(resource)) {
			const full = `${option.name}: ${resourceName}`;
			// The operations too long for that (Get Many Threads, Hand to Assistant…) name their object themselves.
			table[`${resource.option.value}:${option.value}`] =
				full.length <= SUBTITLE_MAX_LENGTH ? full : option.name;
		}
	}
	return table;
}

/**
 * n8n evaluates `subtitle` over the node's parameters only: the options' display names are out of
 * its reach, so the expression looks the choice up in a table built from them. The parentheses
 * keep the object literal from being read as a block.
 */
const SUBTITLE = `={{ (${JSON.stringify(subtitleTable())})[$parameter["resource"] + ":" + $parameter["operation"]] || $parameter["operation"] }}`;

export class Svc implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Svc',
		name: 'svc',
		icon: { light: 'file:svc.svg', dark: 'file:svc.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: SUBTITLE,
		description:
			'Manage leads and consent, read conversations, hand leads to the assistant and dispatch campaigns',
		defaults: { name: 'Svc' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// testedBy: the credential's Test runs methods.credentialTest.svcApiTest (n8n 1.x and 2.x).
		credentials: [{ name: 'svcApi', required: true, testedBy: 'svcApiTest' }],
		properties: buildProperties(),
	};

	methods = {
		listSearch: { searchLeads, searchThreads, searchCampaigns },
		credentialTest: { svcApiTest },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeOperations.call(this);
	}
}
