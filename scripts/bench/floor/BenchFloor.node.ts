/* eslint-disable @n8n/community-nodes/icon-validation, @n8n/community-nodes/node-usable-as-tool, @n8n/community-nodes/require-node-description-fields -- a fixture loaded only by tests or benchmarks, never published */
import { randomUUID } from 'node:crypto';

import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { runBounded } from '../../../nodes/Svc/shared/pool';

/**
 * Bench-only fixture, never shipped (it lives outside `nodes/`, so neither the build nor the
 * tarball holds it): the floor for the Svc node's lead upsert in (a). Per item it does what no
 * node sending through n8n can skip, and nothing else: one httpRequestWithAuthentication call with
 * the Svc API credential, POST /v1/leads with the item as the body and an Idempotency-Key, at the
 * Svc node's concurrency. Like the Svc node, it reads the credential once per execution and hands
 * it to n8n, which otherwise decrypts it again for every request.
 */
export class BenchFloor implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bench Floor',
		name: 'benchFloor',
		group: ['transform'],
		version: 1,
		description: "Benchmark fixture: posts each item to /v1/leads through n8n's request helper",
		defaults: { name: 'Bench Floor' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'svcApi', required: true }],
		properties: [
			{ displayName: 'Concurrency', name: 'concurrency', type: 'number', default: 16 },
			{
				displayName: 'Disable Follow Redirect',
				name: 'disableFollowRedirect',
				type: 'boolean',
				default: false,
				description: 'Whether n8n sends without follow-redirects (a 3xx is then an error)',
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const concurrency = this.getNodeParameter('concurrency', 0) as number;
		const disableFollowRedirect = this.getNodeParameter('disableFollowRedirect', 0) as boolean;
		const data = await this.getCredentials('svcApi');
		const reference = this.getNode().credentials?.svcApi;
		const credentialsDecrypted = {
			id: reference?.id ?? '',
			name: reference?.name ?? '',
			type: 'svcApi',
			data,
		};
		const url = `${data.baseUrl as string}/v1/leads`;
		const results = new Array<INodeExecutionData>(items.length);
		await runBounded(items.length, concurrency, async (index) => {
			const options: IHttpRequestOptions = {
				method: 'POST',
				url,
				headers: { 'Idempotency-Key': randomUUID() },
				body: items[index].json,
				json: true,
				disableFollowRedirect,
			};
			const body = (await this.helpers.httpRequestWithAuthentication.call(this, 'svcApi', options, {
				credentialsDecrypted,
			})) as IDataObject;
			results[index] = { json: body, pairedItem: { item: index } };
		});
		return [results];
	}
}
