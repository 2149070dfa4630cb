/** Node parameters that several operations show; what they do at run time lives in requests.ts and router.ts. */

import type { INodeProperties } from 'n8n-workflow';

import { plainOnly, TOOL_DEFAULT_LIMIT, TOOL_MAX_LIMIT, toolOnly } from './tool';

/**
 * 16 keeps a 20 ms service busy enough that latency, not the count, bounds a bulk write; n8n's
 * HTTP Request node sends every item at once. A 429 still slows every request of the node.
 */
export const DEFAULT_CONCURRENCY = 16;
export const MAX_CONCURRENCY = 32;

/** Entries every operation's "Options" collection ends with. */
export const requestOptions: INodeProperties[] = [
	{
		displayName: 'Concurrency',
		name: 'concurrency',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
		default: DEFAULT_CONCURRENCY,
		description:
			'How many items are sent to the service at the same time. Output order always follows input order.',
	},
	{
		displayName: 'Max Requests per Second',
		name: 'maxRequestsPerSecond',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 0,
		description:
			'Upper bound on requests per second for this node; 0 means no bound. A 429 from the service slows every request of the node, whatever this says.',
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

/** The option that lets an operation which messages leads send during an n8n evaluation run. */
export const SEND_DURING_EVALUATIONS = 'sendDuringEvaluations';

/**
 * n8n's evaluations run a workflow over a data set, again and again: an operation that messages
 * real leads sends nothing there unless a person switched this on (read as stored, never an expression).
 */
export const sendDuringEvaluationsOption: INodeProperties = {
	displayName: 'Send During Evaluations',
	name: SEND_DURING_EVALUATIONS,
	type: 'boolean',
	noDataExpression: true,
	default: false,
	description:
		'Whether to call the service when n8n runs this workflow as an evaluation. Off: the node sends nothing there and returns a note saying so, so an evaluation never messages real leads. Set here by a person: an expression counts as off.',
};

export const idempotencyKeyOption: INodeProperties = {
	displayName: 'Idempotency Key',
	name: 'idempotencyKey',
	type: 'string',
	default: '',
	placeholder: 'e.g. {{ $json.order_id }}',
	description:
		'What identifies this write, so the service applies it once: a UUID is sent as it is, other text (an order or submission ID) is turned into one. Set it from your data to make re-running a workflow after a crash safe. Leave empty: the node derives a key per item that stays the same when the request or the node is retried.',
};

/**
 * Return All / Limit on the plain node; on the AI tool only Max Results, default TOOL_DEFAULT_LIMIT
 * and at most TOOL_MAX_LIMIT, so a tool's answer stays small enough for a model's context. Not
 * named "limit": n8n's node rules hold a Limit to the list default of 50 beside Return All.
 */
export const returnAllAndLimit: INodeProperties[] = [
	...plainOnly([
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
	]),
	...toolOnly([
		{
			displayName: 'Max Results',
			name: 'maxResults',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: TOOL_MAX_LIMIT },
			default: TOOL_DEFAULT_LIMIT,
			description: `Max number of results to return, from 1 to ${TOOL_MAX_LIMIT}. Left to the model, it asks for what it needs, e.g. 5; a larger number is cut to ${TOOL_MAX_LIMIT}.`,
		},
	]),
];

/** Simplify: off by default on the plain node; on the AI tool on by default, for answers a model reads quickly. */
export const simplifyOption: INodeProperties[] = [
	...plainOnly([
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: false,
			description: 'Whether to return a simplified version of the response instead of the raw data',
		},
	]),
	...toolOnly([
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: true,
			description:
				'Whether to return a simplified version of the response instead of the raw data. On by default for an AI tool: the fields most answers need, in fewer tokens.',
		},
	]),
];

/** How one list filter shows in the "Filters" collection. */
type FilterField = Pick<INodeProperties, 'displayName' | 'placeholder' | 'description'>;

/** A list's "Filters" collection: a text field for each filter the contract lists for its endpoint, in that order. */
export function listFilters<Filter extends string>(
	filters: readonly Filter[],
	fields: Record<Filter, FilterField>,
): INodeProperties {
	return {
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: filters.map((name): INodeProperties => {
			const { displayName, placeholder, description } = fields[name];
			return {
				displayName,
				name,
				type: 'string',
				...(placeholder === undefined ? {} : { placeholder }),
				default: '',
				description,
			};
		}),
	};
}
