/* eslint-disable @n8n/community-nodes/icon-validation, @n8n/community-nodes/node-usable-as-tool, @n8n/community-nodes/require-node-description-fields, @n8n/community-nodes/no-credential-reuse, @n8n/community-nodes/valid-credential-references -- a fixture loaded only by tests or benchmarks, never published */
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	JsonObject,
} from 'n8n-workflow';

/** Calls `${baseUrl}${path}` once per item through n8n's authenticated request helper. */
export class FixtureHttp implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Fixture HTTP',
		name: 'fixtureHttp',
		group: ['transform'],
		version: 1,
		description: 'Harness fixture',
		defaults: { name: 'Fixture HTTP' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'fixtureApi', required: true }],
		properties: [{ displayName: 'Path', name: 'path', type: 'string', default: '/echo' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const { baseUrl } = await this.getCredentials<{ baseUrl: string }>('fixtureApi');
		const staticData = this.getWorkflowStaticData('node');
		staticData.executions = ((staticData.executions as number | undefined) ?? 0) + 1;
		const output: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const path = this.getNodeParameter('path', itemIndex) as string;
			this.logger.debug('Fixture HTTP calling the service', { path, itemIndex });
			try {
				const response = (await this.helpers.httpRequestWithAuthentication.call(
					this,
					'fixtureApi',
					{
						method: 'GET',
						url: `${baseUrl}${path}`,
						qs: { item: items[itemIndex].json.n as number },
					},
				)) as IDataObject;
				output.push({
					json: {
						...items[itemIndex].json,
						response,
						executionId: this.getExecutionId(),
						node: this.getNode().name,
					},
					pairedItem: { item: itemIndex },
				});
			} catch (error) {
				if (!this.continueOnFail())
					throw error instanceof NodeApiError
						? error
						: new NodeApiError(this.getNode(), error as JsonObject);
				output.push({ json: { error: (error as Error).message }, pairedItem: { item: itemIndex } });
			}
		}
		return [output];
	}
}
