import { NodeConnectionTypes, NodeHelpers, UnexpectedError } from 'n8n-workflow';
import type {
	IConnections,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';

export type NodeTypeMap = Record<string, INodeType | IVersionedNodeType>;

/** The version n8n's editor places a new node of this description at: its default, else its latest. */
export function placedVersion(
	description: Pick<INodeTypeDescription, 'version' | 'defaultVersion'>,
): number {
	const { version, defaultVersion } = description;
	return defaultVersion ?? (Array.isArray(version) ? Math.max(...version) : version);
}

/** The harness's stand-in for n8n's Manual Trigger: it emits the items the run was given. */
export const START_NODE_TYPE = 'n8n-harness.start';

/** What n8n 2.x's NodeTypes service gives a Workflow: lookup by name and by name + version. */
export class HarnessNodeTypes implements INodeTypes {
	constructor(private readonly types: NodeTypeMap) {}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const type = this.types[nodeType];
		if (type === undefined)
			throw new UnexpectedError(`Unknown node type "${nodeType}": add it to nodeTypes`);
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		return Object.fromEntries(Object.keys(this.types).map((name) => [name, {}]));
	}

	/** `nodeType` as loaded anew (n8n restarted): what the workflow's executions get from here on. */
	reload(nodeType: string, type: INodeType | IVersionedNodeType): void {
		this.types[nodeType] = type;
	}
}

/**
 * A plain programmatic node rather than a trigger: WorkflowExecute runs a trigger-type start node
 * through its trigger path, which in manual mode waits for an emit. Items come from a closure so
 * thousands of them cost no parameter resolution.
 */
export function startNodeType(items: INodeExecutionData[]): INodeType {
	return {
		description: {
			displayName: 'Harness Start',
			name: START_NODE_TYPE,
			group: ['input'],
			version: 1,
			description: 'Emits the items given to runWorkflow',
			defaults: { name: 'Start' },
			inputs: [],
			outputs: [NodeConnectionTypes.Main],
			properties: [],
		},
		execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			return Promise.resolve([items]);
		},
	};
}

export function startNode(name = 'Start'): INode {
	return {
		id: 'harness-start',
		name,
		type: START_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
}

/** Connects the named nodes in a line through their first main output and input. */
export function chain(...nodeNames: string[]): IConnections {
	const connections: IConnections = {};
	for (let i = 0; i < nodeNames.length - 1; i++) {
		connections[nodeNames[i]] = {
			main: [[{ node: nodeNames[i + 1], type: NodeConnectionTypes.Main, index: 0 }]],
		};
	}
	return connections;
}

/**
 * The tool copy n8n 2.41.1 makes of a node with `usableAsTool`, as its NodeTypes.getByNameAndVersion
 * and tool-generation convertNodeToAiTool do: the same execute(), the type's name plus "Tool", no
 * inputs, one ai_tool output, and n8n's "Tool Description" pair unless the node has a parameter
 * named toolDescription. Register it under the node's type plus "Tool" (e.g. n8n-nodes-svc.svcTool).
 */
export function aiToolNodeType(nodeType: INodeType): INodeType {
	const base: INodeTypeDescription = { ...nodeType.description };
	delete base.usableAsTool;
	const properties = [...base.properties];
	if (!properties.some((property) => property.name === 'toolDescription')) {
		const description: INodeProperties = {
			displayName: 'Description',
			name: 'toolDescription',
			type: 'string',
			default: base.description,
			required: true,
			typeOptions: { rows: 2 },
			description:
				'Explain to the LLM what this tool does, a good, specific description would allow LLMs to produce expected results much more often',
		};
		const hasResourceOrOperation = properties.some(
			(property) => property.name === 'resource' || property.name === 'operation',
		);
		if (hasResourceOrOperation) {
			description.displayOptions = { show: { descriptionType: ['manual'] } };
			const descriptionType: INodeProperties = {
				displayName: 'Tool Description',
				name: 'descriptionType',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Set Automatically',
						value: 'auto',
						description: 'Automatically set based on resource and operation',
					},
					{ name: 'Set Manually', value: 'manual', description: 'Manually set the description' },
				],
				default: 'auto',
			};
			properties.unshift(descriptionType, description);
		} else {
			properties.unshift(description);
		}
	}
	const description: INodeTypeDescription = {
		...base,
		name: `${base.name}Tool`,
		displayName: `${base.displayName} Tool`,
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
		properties,
	};
	return Object.create(nodeType, { description: { value: description } }) as INodeType;
}
