import type {
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeParameters,
	INodeType,
	INodeTypes,
} from 'n8n-workflow';
import { NodeHelpers, NodeOperationError, Workflow } from 'n8n-workflow';

import { resources } from '../../nodes/Svc/actions/router';
import {
	ALLOW_TOOL_USE,
	answersMcpClient,
	runsAsTool,
	TOOL_DEFAULT_LIMIT,
	TOOL_MAX_LIMIT,
	toolUsePermission,
	withFixInMessage,
} from '../../nodes/Svc/actions/tool';
import { Svc } from '../../nodes/Svc/Svc.node';
import { aiToolNodeType } from '../../harness/engine/node-types';

const plain = new Svc();
const tool = aiToolNodeType(plain);

/** A node named Svc of `type`, as a workflow holds it. */
function svcNode(type: string, parameters: INodeParameters): INode {
	return { id: 'n', name: 'Svc', type, typeVersion: 1, position: [0, 0], parameters };
}

/** The parameters n8n's Workflow fills in for a node of this type (defaults of what is displayed, nothing hidden), as at run time. */
function filled(type: INodeType, parameters: INodeParameters): INodeParameters {
	const nodeTypes: INodeTypes = {
		getByName: () => type,
		getByNameAndVersion: () => type,
		getKnownTypes: (): IDataObject => ({}),
	};
	const node = svcNode(`n8n-nodes-svc.${type.description.name}`, parameters);
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	return workflow.getNode('Svc')?.parameters ?? {};
}

const choices = resources.flatMap((resource) =>
	resource.operations.map((operation) => ({ resource, operation })),
);
const PROTECTED = ['campaign:dispatch', 'webhookSubscription:create', 'webhookSubscription:delete'];

describe('the protection helper', () => {
	it('knows the tool copy by its type, whichever way the package was loaded', () => {
		expect(runsAsTool({ type: 'n8n-nodes-svc.svcTool' })).toBe(true);
		expect(runsAsTool({ type: 'CUSTOM.svcTool' })).toBe(true);
		expect(runsAsTool({ type: 'n8n-nodes-svc.svc' })).toBe(false);
	});

	it('allows only the stored boolean true', () => {
		expect(toolUsePermission({ [ALLOW_TOOL_USE]: true })).toEqual({ allowed: true });
	});

	it.each([
		[
			'an expression from $fromAI',
			"={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('allow', '', 'boolean') }}",
			/holds an expression/,
		],
		['an expression that is true', '={{ true }}', /holds an expression/],
		['the text "true"', 'true', /holds an expression/],
		['missing', undefined, /is not set/],
		['false', false, /is off/],
		['the number 1', 1, /is off/],
	])('refuses %s', (_case, value, cause) => {
		const parameters: INodeParameters = value === undefined ? {} : { [ALLOW_TOOL_USE]: value };
		const permission = toolUsePermission(parameters);
		expect(permission.allowed).toBe(false);
		expect(permission.allowed ? '' : permission.cause).toMatch(cause);
	});

	it('which operations are protected is said on the operations themselves', () => {
		const flagged = choices
			.filter(({ operation }) => operation.needsPersonAsTool)
			.map(({ resource, operation }) => `${resource.option.value}:${operation.option.value}`);
		expect(flagged).toEqual(PROTECTED);
	});
});

describe('Allow Use by AI in the node', () => {
	const property = plain.description.properties.find((entry) => entry.name === ALLOW_TOOL_USE);

	it('is a switch a model cannot be offered', () => {
		expect(property).toMatchObject({
			displayName: 'Allow Use by AI',
			type: 'boolean',
			default: false,
			noDataExpression: true,
		});
	});

	it.each(
		choices.map(({ resource, operation }) => [
			`${resource.option.value}:${operation.option.value}`,
			resource.option.value,
			operation.option.value,
		]),
	)(
		'%s: shown on the tool only when protected, never on the plain node',
		(key, resource, operation) => {
			const parameters = { resource, operation } as INodeParameters;
			expect(ALLOW_TOOL_USE in filled(tool, parameters)).toBe(PROTECTED.includes(key));
			expect(ALLOW_TOOL_USE in filled(plain, parameters)).toBe(false);
		},
	);

	it('a stored true survives as true; an expression stays a string', () => {
		const dispatch = { resource: 'campaign', operation: 'dispatch' };
		expect(filled(tool, { ...dispatch, allowToolUse: true }).allowToolUse).toBe(true);
		expect(typeof filled(tool, { ...dispatch, allowToolUse: '={{ true }}' }).allowToolUse).toBe(
			'string',
		);
		expect(
			typeof filled(tool, { ...dispatch, allowToolUse: "={{ $fromAI('allow', '', 'boolean') }}" })
				.allowToolUse,
		).toBe('string');
	});

	it('on the tool, Dispatch has no confirmation switch of its own (Allow Use by AI is the confirmation)', () => {
		const dispatch = {
			resource: 'campaign',
			operation: 'dispatch',
			confirmDispatch: "={{ $fromAI('confirm', '', 'boolean') }}",
		};
		expect('confirmDispatch' in filled(tool, dispatch)).toBe(false);
		expect(filled(plain, { resource: 'campaign', operation: 'dispatch' }).confirmDispatch).toBe(
			false,
		);
	});
});

describe('what n8n tells the model', () => {
	it('n8n adds no "Tool Description: Set Automatically" of its own: the node brings its description parameter', () => {
		const names = tool.description.properties.map((property) => property.name);
		expect(names).not.toContain('descriptionType');
		expect(names).toContain('toolDescription');
		expect(
			plain.description.properties
				.filter((property) => property.name === 'toolDescription')
				.every((property) => property.displayOptions?.show?.['@tool']?.[0] === true),
		).toBe(true);
	});

	it.each(
		choices.map(({ resource, operation }) => [
			`${resource.option.name}: ${operation.option.name}`,
			resource,
			operation,
		]),
	)('%s: a description of its own, not "<action> in Svc"', (_label, resource, operation) => {
		const parameters = filled(tool, {
			resource: resource.option.value,
			operation: operation.option.value,
		});
		const node = svcNode('n8n-nodes-svc.svcTool', parameters);
		const given = NodeHelpers.getToolDescriptionForNode(node, tool);
		expect(given).toBe(operation.toolDescription);
		expect(given).not.toBe(NodeHelpers.makeDescription(parameters, tool.description));
		expect(given).toMatch(/\bReturns\b/);
		expect(given).toMatch(/\bSvc\b/);
		expect(given.length).toBeLessThan(600);
		if (operation.needsPersonAsTool) expect(given).toContain("switched on 'Allow Use by AI'");
	});
});

describe('compact reads on the tool, the plain node unchanged', () => {
	it.each([
		'lead:getAll',
		'conversation:getAllThreads',
		'conversation:getMessages',
		'campaign:getAll',
		'webhookSubscription:getAll',
	])('%s', (key) => {
		const [resource, operation] = key.split(':');
		const onTool = filled(tool, { resource, operation });
		expect(onTool).not.toHaveProperty('returnAll');
		expect(onTool).not.toHaveProperty('limit');
		expect(onTool.maxResults).toBe(TOOL_DEFAULT_LIMIT);
		const maxResults = tool.description.properties.find(
			(property) => property.name === 'maxResults',
		);
		expect(maxResults?.typeOptions?.maxValue).toBe(TOOL_MAX_LIMIT);
		const onPlain = filled(plain, { resource, operation });
		expect(onPlain).toMatchObject({ returnAll: false, limit: 50 });
		expect(onPlain).not.toHaveProperty('maxResults');
	});

	it.each(['lead:get', 'lead:getAll', 'conversation:getMessages'])(
		'%s: Simplify on by default on the tool, off on the plain node',
		(key) => {
			const [resource, operation] = key.split(':');
			expect(filled(tool, { resource, operation }).simplify).toBe(true);
			expect(filled(plain, { resource, operation }).simplify).toBe(false);
		},
	);

	it('Map Automatically is not offered on the tool', () => {
		const upsert = { resource: 'lead', operation: 'upsert' };
		const modes = tool.description.properties.filter((property) => property.name === 'inputMode');
		const shownOnTool = modes.find(
			(property) => property.displayOptions?.show?.['@tool']?.[0] === true,
		);
		expect(shownOnTool).toMatchObject({ type: 'hidden', default: 'defineBelow' });
		expect(filled(tool, upsert).inputMode).toBe('defineBelow');
		expect(filled(tool, { ...upsert, options: { ignoreFields: 'x' } }).options).toEqual({});
		expect(filled(plain, upsert).inputMode).toBe('defineBelow');
		expect(
			filled(plain, { ...upsert, inputMode: 'mapAutomatically', options: { ignoreFields: 'x' } }),
		).toMatchObject({ inputMode: 'mapAutomatically', options: { ignoreFields: 'x' } });
	});
});

describe('a failure thrown to an MCP client', () => {
	/** A run context as far as answersMcpClient reads it: n8n-core's SupplyDataContext carries `parentNode`, an engine-run ExecuteContext none. */
	const runContext = (fields: object): IExecuteFunctions => fields as IExecuteFunctions;

	it('knows the MCP Server Trigger by the node that asked for the tool, and nothing else', () => {
		expect(
			answersMcpClient(
				runContext({
					parentNode: { name: 'MCP Server', type: '@n8n/n8n-nodes-langchain.mcpTrigger' },
				}),
			),
		).toBe(true);
		expect(
			answersMcpClient(
				runContext({ parentNode: { name: 'Agent', type: '@n8n/n8n-nodes-langchain.agent' } }),
			),
		).toBe(false);
		expect(answersMcpClient(runContext({ parentNode: undefined }))).toBe(false);
		expect(answersMcpClient(runContext({}))).toBe(false);
	});

	it('carries the fix in the message, once', () => {
		const node = svcNode('n8n-nodes-svc.svcTool', {});
		const error = withFixInMessage(
			new NodeOperationError(node, 'The cause', { description: 'The fix.' }),
		);
		expect(error.message).toBe('The cause\n\nDetails: The fix.');
		expect(withFixInMessage(error).message).toBe('The cause\n\nDetails: The fix.');
		expect(withFixInMessage(new NodeOperationError(node, 'Only a cause')).message).toBe(
			'Only a cause',
		);
	});
});
