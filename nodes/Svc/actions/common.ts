import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { EndpointName } from '../contract';
import { DASHBOARD_PATHS } from '../contract';
import { asText } from '../shared/text';
import type { RequestSpec } from '../transport';
import { userError } from '../transport';
import type { OperationContext } from './types';

export const DEFAULT_CONCURRENCY = 8;
export const MAX_CONCURRENCY = 32;

/** Entries every operation's "Options" collection ends with. */
export const requestOptions: INodeProperties[] = [
	{
		displayName: 'Concurrency',
		name: 'concurrency',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
		default: DEFAULT_CONCURRENCY,
		description: 'How many items are sent to the service at the same time. Output order always follows input order.',
	},
	{
		displayName: 'Max Requests per Second',
		name: 'maxRequestsPerSecond',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 0,
		description: 'Upper bound on requests per second for this node; 0 means no bound. A 429 from the service slows every request of the node, whatever this says.',
	},
	{
		displayName: 'Timeout (Seconds)',
		name: 'timeoutSeconds',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 300 },
		default: 30,
		description: 'How long one request may take before it is retried or fails',
	},
];

export const idempotencyKeyOption: INodeProperties = {
	displayName: 'Idempotency Key',
	name: 'idempotencyKey',
	type: 'string',
	default: '',
	placeholder: 'e.g. {{ $json.order_id }}',
	description:
		'What identifies this write, so the service applies it once: a UUID is sent as it is, other text (an order or submission ID) is turned into one. Set it from your data to make re-running a workflow after a crash safe. Leave empty: the node derives a key per item that stays the same when the request or the node is retried.',
};

export const returnAllAndLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];

export const simplifyOption: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: false,
	description: 'Whether to return a simplified version of the response instead of the raw data',
};

/** The named fields of a record, in that order; the rest is left out. */
export function pick(record: IDataObject, fields: readonly string[]): IDataObject {
	return Object.fromEntries(fields.filter((field) => field in record).map((field) => [field, record[field]]));
}

/** Reads a list endpoint page by page, honouring Return All / Limit. */
export async function readList(op: OperationContext, endpoint: EndpointName, spec: RequestSpec = {}): Promise<IDataObject[]> {
	const returnAll = op.ctx.getNodeParameter('returnAll', op.itemIndex, false);
	const max = returnAll ? undefined : op.ctx.getNodeParameter('limit', op.itemIndex, 50);
	return await op.client.paginate<IDataObject>(endpoint, { ...spec, max, itemIndex: op.itemIndex });
}

const ID_PATTERN = '^[^\\s/?#]+$';

/** A resource locator: pick from a searchable list, give the ID, or paste the dashboard page's URL. */
export function resourceLocator(options: {
	name: string;
	displayName: string;
	searchListMethod: string;
	what: keyof typeof DASHBOARD_PATHS;
	placeholder: string;
}): INodeProperties {
	const urlPattern = `https?://[^/]+/(?:.*/)?${DASHBOARD_PATHS[options.what]}/([^\\s/?#]+)(?:[/?#].*)?`;
	return {
		displayName: options.displayName,
		name: options.name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: `The ${options.what} to use`,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: options.searchListMethod, searchable: true, searchFilterRequired: false },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: options.placeholder,
				validation: [
					{
						type: 'regex',
						properties: { regex: ID_PATTERN, errorMessage: `Not a valid ${options.what} ID (no spaces or slashes)` },
					},
				],
			},
			{
				displayName: 'By URL',
				name: 'url',
				type: 'string',
				placeholder: `e.g. https://app.example.com/${DASHBOARD_PATHS[options.what]}/${options.placeholder.replace('e.g. ', '')}`,
				validation: [
					{
						type: 'regex',
						properties: { regex: urlPattern, errorMessage: `Not a URL of a ${options.what} page (…/${DASHBOARD_PATHS[options.what]}/<id>)` },
					},
				],
				extractValue: { type: 'regex', regex: urlPattern },
			},
		],
	};
}

/** The ID chosen in a resource locator (or given as a plain string by an expression). */
export function locatorValue(op: OperationContext, name: string, what: string): string {
	const value = asText(op.ctx.getNodeParameter(name, op.itemIndex, '', { extractValue: true })).trim();
	if (value === '' || !new RegExp(ID_PATTERN).test(value)) {
		throw userError(op.ctx.getNode(), `Enter a valid ${what} ID`, {
			itemIndex: op.itemIndex,
			description: value === '' ? `The ${what} parameter is empty for this item.` : `"${value}" contains spaces or slashes.`,
		});
	}
	return value;
}

/** The record an endpoint returns for the ID chosen in a resource locator. */
export async function readOne(op: OperationContext, endpoint: EndpointName, pathParam: string, locator: { name: string; what: string }): Promise<IDataObject> {
	const id = locatorValue(op, locator.name, locator.what);
	const { body } = await op.client.request<IDataObject>(endpoint, { pathParams: { [pathParam]: id }, itemIndex: op.itemIndex });
	return { ...body };
}

/** Copies the non-empty entries of a collection parameter into a query or body object. */
export function nonEmpty(values: IDataObject): IDataObject {
	const result: IDataObject = {};
	for (const [key, value] of Object.entries(values)) {
		if (value !== undefined && value !== null && value !== '') result[key] = value;
	}
	return result;
}
