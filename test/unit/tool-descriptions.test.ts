/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { Svc } from '../../nodes/Svc/Svc.node';
import { EXAMPLES_DIR } from '../../harness/project';
import { SVC_TOOLS } from '../../harness/svc-tools';

/**
 * A model reads a tool's description and fills its schema: the parameters the person left to the
 * model ($fromAI). Every Svc tool the examples, `npm run dev` and the docs offer must not name a
 * field the model cannot fill, and must name each one it can.
 */
const description = new Svc().description;
const { properties } = description;
/** The node as n8n offers it to an agent: n8n shows a `@tool` field by the type's name. */
const toolType = { ...description, name: `${description.name}Tool` };
const toolNode = { typeVersion: Math.max(...[description.version].flat()) };

/** Fields of the node that are not inputs of the operation. */
const NOT_INPUTS = new Set(['resource', 'operation', 'toolDescription', 'allowToolUse']);

/** Whether n8n shows a property on a tool with these parameters (the rest at their defaults). */
function shownOn(parameters: INodeParameters): (property: INodeProperties) => boolean {
	const resolved =
		NodeHelpers.getNodeParameters(properties, parameters, true, false, toolNode, toolType) ??
		parameters;
	return (property) => NodeHelpers.displayParameter(resolved, property, toolNode, toolType);
}

interface Field {
	displayName: string;
	/** Where its value sits in the node's parameters. */
	path: string[];
}

/** The inputs a tool with these parameters shows: its fields, and the options of its collections. */
function inputsOf(parameters: INodeParameters): Field[] {
	const shown = shownOn(parameters);
	return properties
		.filter((property) => !NOT_INPUTS.has(property.name) && shown(property))
		.flatMap((property): Field[] => {
			const own = { displayName: property.displayName, path: [property.name] };
			if (property.type !== 'collection') return [own];
			return (property.options as INodeProperties[]).map((option) => ({
				displayName: option.displayName,
				path: [property.name, option.name],
			}));
		});
}

function valueAt(parameters: INodeParameters, path: string[]): unknown {
	return path.reduce<unknown>(
		(value, key) => (value as INodeParameters | undefined)?.[key],
		parameters,
	);
}

const filledByModel = (value: unknown): boolean => JSON.stringify(value ?? '').includes('$fromAI(');

/** What the model is told: the tool's own description, or the operation's default. */
function descriptionOf(parameters: INodeParameters): string {
	if (typeof parameters.toolDescription === 'string') return parameters.toolDescription;
	const shown = shownOn(parameters);
	const fallback = properties.find(
		(property) => property.name === 'toolDescription' && shown(property),
	);
	return fallback?.default as string;
}

const mentions = (text: string, field: Field) =>
	new RegExp(`\\b${field.displayName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i').test(text);

function offeredTools(): Array<[string, INodeParameters]> {
	const fromExamples = readdirSync(EXAMPLES_DIR)
		.filter((file) => file.endsWith('.json'))
		.flatMap((file) => {
			const workflow = JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as {
				nodes: Array<{ name: string; type: string; parameters: INodeParameters }>;
			};
			return workflow.nodes
				.filter((node) => node.type === 'n8n-nodes-svc.svcTool')
				.map((node): [string, INodeParameters] => [`${file}: ${node.name}`, node.parameters]);
		});
	const fromHarness = Object.entries(SVC_TOOLS).map(
		([name, parameters]): [string, INodeParameters] => [
			`npm run dev and the suites: ${name}`,
			parameters,
		],
	);
	return [...fromExamples, ...fromHarness];
}

describe('every Svc tool offered: its description against its schema', () => {
	it('finds the tools of the examples and of npm run dev', () => {
		expect(offeredTools().map(([name]) => name)).toEqual(
			expect.arrayContaining([
				'ai-agent-qualify-lead.json: Find Lead',
				'npm run dev and the suites: Find Lead',
			]),
		);
	});

	it.each(offeredTools())('%s', (_name, parameters) => {
		const inputs = inputsOf(parameters);
		const description = descriptionOf(parameters);
		const fromModel = inputs.filter((field) => filledByModel(valueAt(parameters, field.path)));
		expect(fromModel.length).toBeGreaterThan(0);
		// Named, yet not the model's to fill: the description promises what the schema refuses.
		expect(
			inputs
				.filter((field) => !fromModel.includes(field) && mentions(description, field))
				.map((field) => field.displayName),
		).toEqual([]);
		// The model's to fill, yet not said what it is for.
		expect(
			fromModel.filter((field) => !mentions(description, field)).map((field) => field.displayName),
		).toEqual([]);
	});
});
