import type { IDataObject, IExecuteFunctions, IGetNodeParameterOptions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { SvcClient } from '../transport';

export interface OperationContext {
	ctx: IExecuteFunctions;
	client: SvcClient;
	itemIndex: number;
	/** This item's value of a node parameter (resolved once per execution when it holds no expression). */
	parameter<T>(name: string, fallback: T, options?: IGetNodeParameterOptions): T;
	/**
	 * The Idempotency-Key for this item's write: the user's own from the options, or one
	 * derived from execution, node, run, item, operation and body.
	 */
	writeKey(operation: string, body: unknown): string;
	/** Adds a hint shown once under the node's output. */
	hint(message: string): void;
}

/** One operation of one resource: its UI (without displayOptions) and what it does per item. */
export interface Operation {
	option: INodePropertyOptions & { action: string };
	properties: INodeProperties[];
	/** Entries of this operation's "Options" collection, before the common request options. */
	options?: INodeProperties[];
	/** Whether this operation writes (gets the Idempotency Key option). */
	writes?: boolean;
	execute(op: OperationContext): Promise<IDataObject | IDataObject[]>;
}

export interface Resource {
	option: INodePropertyOptions;
	operations: Operation[];
}
