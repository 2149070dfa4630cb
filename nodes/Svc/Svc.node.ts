import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { buildProperties, executeOperations } from './actions/router';
import { searchCampaigns, searchLeads, searchThreads } from './methods/listSearch';

export class Svc implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Svc',
		name: 'svc',
		icon: { light: 'file:svc.svg', dark: 'file:svc.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description: 'Manage leads and consent, read conversations, hand leads to the assistant and dispatch campaigns',
		defaults: { name: 'Svc' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'svcApi', required: true }],
		properties: buildProperties(),
	};

	methods = { listSearch: { searchLeads, searchThreads, searchCampaigns } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeOperations.call(this);
	}
}
