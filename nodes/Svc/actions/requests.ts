/** What operations share at run time: reading records and lists, and turning parameters into a query or body. */

import type { IDataObject } from 'n8n-workflow';

import type { EndpointName } from '../contract';
import type { RequestSpec } from '../transport';
import type { LocatedRecord } from './locators';
import { locatorValue } from './locators';
import { TOOL_DEFAULT_LIMIT, TOOL_MAX_LIMIT } from './tool';
import type { OperationContext } from './types';

/** How many items a tool's list returns: its Max Results (a model may fill it), at least 1 and at most TOOL_MAX_LIMIT. */
function toolLimit(value: unknown): number {
	const number = Math.floor(Number(value));
	if (!Number.isFinite(number) || number < 1) return TOOL_DEFAULT_LIMIT;
	return Math.min(number, TOOL_MAX_LIMIT);
}

/** Reads a list endpoint page by page, honouring Return All / Limit; as an AI tool, Max Results, never more than TOOL_MAX_LIMIT items. */
export async function readList(
	op: OperationContext,
	endpoint: EndpointName,
	spec: RequestSpec = {},
): Promise<IDataObject[]> {
	if (op.asTool) {
		const max = toolLimit(op.parameter<unknown>('maxResults', TOOL_DEFAULT_LIMIT));
		return await op.client.paginate<IDataObject>(endpoint, {
			...spec,
			max,
			itemIndex: op.itemIndex,
		});
	}
	const returnAll = op.parameter('returnAll', false);
	const max = returnAll ? undefined : op.parameter('limit', 50);
	return await op.client.paginate<IDataObject>(endpoint, { ...spec, max, itemIndex: op.itemIndex });
}

/** The record an endpoint returns for the ID chosen in a resource locator. */
export async function readOne(
	op: OperationContext,
	endpoint: EndpointName,
	pathParam: string,
	what: LocatedRecord,
): Promise<IDataObject> {
	const id = locatorValue(op, what);
	const { body } = await op.client.request<IDataObject>(endpoint, {
		pathParams: { [pathParam]: id },
		itemIndex: op.itemIndex,
	});
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
