import type {
	IDataObject,
	IExecuteFunctions,
	IGetNodeParameterOptions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import type { SvcClient } from '../transport';

/** What a derived Idempotency-Key stays the same across: see OperationContext.writeKey. */
export type WriteKeyScope = 'run' | 'content';

/** An item's Idempotency-Key, and where it came from: the user's option or derived per scope. */
export interface WriteKey {
	value: string;
	from: 'option' | WriteKeyScope;
}

export interface OperationContext {
	ctx: IExecuteFunctions;
	client: SvcClient;
	itemIndex: number;
	/** Whether the node runs as n8n's AI tool copy (type `…svcTool`): lists are capped, Map Automatically is refused. */
	asTool: boolean;
	/** This item's value of a node parameter (resolved once per execution when it holds no expression). */
	parameter<T>(name: string, fallback: T, options?: IGetNodeParameterOptions): T;
	/**
	 * The Idempotency-Key for this item's write: the user's own from the options, or one derived
	 * from execution, node, run, item, operation and body (`run`), or from operation and body alone
	 * (`content`: the same write from any run is applied once within the service's window).
	 */
	writeKey(operation: string, body: unknown, scope?: WriteKeyScope): WriteKey;
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
	/**
	 * What n8n tells the model this operation does, what to pass and what comes back, when the node
	 * is an AI tool: the default of the tool's "Description" parameter for this operation.
	 */
	toolDescription: string;
	/**
	 * Whether a model alone must not run this operation: as an AI tool it runs only when a person
	 * switched on "Allow Use by AI" in the node (a stored `true`, never an expression).
	 */
	needsPersonAsTool?: boolean;
	/**
	 * Whether this operation can send messages to real leads: in an n8n evaluation run it sends
	 * nothing unless a person switched on "Send During Evaluations" (sendDuringEvaluationsOption).
	 */
	messagesLeads?: boolean;
	execute(op: OperationContext): Promise<IDataObject | IDataObject[]>;
}

export interface Resource {
	option: INodePropertyOptions;
	operations: Operation[];
}
