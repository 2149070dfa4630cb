/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type {
	CodexData,
	IDataObject,
	INode,
	INodeParameters,
	INodeType,
	INodeTypes,
} from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { SvcApi } from '../../credentials/SvcApi.credentials';
import { resources } from '../../nodes/Svc/actions/router';
import { ENDPOINTS } from '../../nodes/Svc/contract';
import { Svc, SUBTITLE_MAX_LENGTH } from '../../nodes/Svc/Svc.node';
import { SvcPullTrigger } from '../../nodes/Svc/SvcPullTrigger.node';
import { SvcTrigger } from '../../nodes/Svc/SvcTrigger.node';
import { adminEndpoints } from '../../sandbox/admin';
import { EXAMPLES_DIR, SVC_TRIGGER_TYPE } from '../../harness/project';

const ROOT = join(__dirname, '..', '..');
const REPOSITORY = 'https://github.com/n8n-nodes-svc/n8n-nodes-svc';
/** Where documentation links point: a page in the repository, never an anchor (n8n appends ?utm_… after it). */
const DOCS_PAGE = new RegExp(`^${REPOSITORY}/blob/main/(docs/[a-z-]+\\.md)$`);

/**
 * The codex categories n8n documents for nodes ("Node codex files", docs.n8n.io). n8n 2.41's
 * editor gives none of them a place of its own (only Core Nodes, AI and HITL change where a node
 * is listed); its own nodes spell one of them "Marketing", the documentation "Marketing &
 * Content", so neither is used here.
 */
const DOCUMENTED_CATEGORIES = [
	'Data & Storage',
	'Finance & Accounting',
	'Marketing & Content',
	'Productivity',
	'Miscellaneous',
	'Sales',
	'Development',
	'Analytics',
	'Communication',
	'Utility',
];

type CodexFile = CodexData & {
	node: string;
	resources: Required<NonNullable<CodexData['resources']>>;
};

function codex(file: string): CodexFile {
	return JSON.parse(readFileSync(join(ROOT, 'nodes', 'Svc', file), 'utf8')) as CodexFile;
}

const action = new Svc();
const trigger = new SvcTrigger();
const codexes = {
	'Svc.node.json': codex('Svc.node.json'),
	'SvcTrigger.node.json': codex('SvcTrigger.node.json'),
};

describe('the node picker finds the nodes by what they do', () => {
	it.each(Object.entries(codexes))(
		'%s names the node, has aliases, documented categories and its resources',
		(_file, data) => {
			expect([
				`n8n-nodes-svc.${action.description.name}`,
				`n8n-nodes-svc.${trigger.description.name}`,
			]).toContain(data.node);
			expect(data.alias?.length).toBeGreaterThan(5);
			expect(data.categories?.length).toBeGreaterThan(0);
			for (const category of data.categories ?? [])
				expect(DOCUMENTED_CATEGORIES).toContain(category);
			// n8n's loader drops the whole codex (aliases too) when `resources` is missing.
			expect(data.resources.primaryDocumentation.length).toBeGreaterThan(0);
			expect(data.resources.credentialDocumentation.length).toBeGreaterThan(0);
		},
	);

	it.each(Object.keys(codexes))(
		'%s: its picker entry matches every word users search for',
		(file) => {
			const aliases = (codexes[file as keyof typeof codexes].alias ?? []).map((alias) =>
				alias.toLowerCase(),
			);
			for (const word of ['lead', 'campaign', 'consent', 'conversation', 'dispatch', 'webhook'])
				expect(aliases).toContain(word);
		},
	);
});

describe('descriptions', () => {
	it('Events per Execution and Batch Size read the same on both triggers: what each option costs and when to pick it, and that a failing node fails the whole batch', () => {
		const batchFields = (node: INodeType) =>
			node.description.properties.filter((property) =>
				['eventsPerExecution', 'batchSize'].includes(property.name),
			);
		expect(batchFields(new SvcPullTrigger())).toEqual(batchFields(trigger));
		const [perExecution, batchSize] = batchFields(trigger);
		const said = Object.fromEntries(
			(perExecution.options ?? []).map((option) => [
				option.name,
				'description' in option ? option.description : undefined,
			]),
		);
		expect(said['Many (Batches)']).toMatch(/100 for 10,000 leads at 100: for imports and bursts$/);
		expect(said.One).toMatch(/^One execution per event, .*: for a few events at a time$/);
		expect(batchSize.description).toMatch(
			/A node that fails on one of them fails the execution\.$/,
		);
	});

	it('the trigger is listed under Svc in the node panel of n8n, with one entry per event, and a description that speaks for both', () => {
		// n8n 2.41 editor, generateMergedNodesAndActions: a trigger named "<node>Trigger" is folded into
		// "<node>"'s entry, which then shows the trigger's description for both.
		expect(trigger.description.name).toBe(`${action.description.name}Trigger`);
		expect(trigger.description.description).toMatch(
			/^Manage leads, consent, conversations and campaigns, or start a workflow when the service sends an event .*: needs a public https URL \(without one, use Svc Pull\)$/,
		);
		// The pull trigger, listed as "Svc Pull", says it needs none and where the webhook triggers are.
		expect(new SvcPullTrigger().description.description).toMatch(
			/needs no public URL\. The Svc entry lists every action \(leads, conversations, campaigns\) and the instant triggers, for n8n at a public https URL$/,
		);
		// Other Event Kinds alone leaves the required Events list empty: the field says to pick one there.
		for (const node of [trigger, new SvcPullTrigger()])
			expect(
				node.description.properties.find((property) => property.name === 'otherEvents')
					?.description,
			).toMatch(/added to the kinds picked under Events, where at least one must be picked\.$/);
		// n8n's publish dialog shows each trigger's activationMessage instead of its generic sentence.
		expect(trigger.description.activationMessage).toMatch(/public webhook URL/);
		expect(new SvcPullTrigger().description.activationMessage).toMatch(
			/at every poll .* needs no way to reach this n8n/,
		);
		// The panel's trigger entries come from a property shown as "Events" with fixed options, by
		// their action: each trigger's say how its events come, so that the two lists differ.
		const entries = (node: INodeType) =>
			node.description.properties
				.find((property) => property.displayName === 'Events')
				?.options?.map((option) => ('action' in option ? option.action : undefined));
		expect(entries(trigger)).toEqual([
			'On lead created (instant, needs a public URL)',
			'On campaign updated (instant, needs a public URL)',
		]);
		expect(entries(new SvcPullTrigger())).toEqual([
			'On lead created (polled, no public URL)',
			'On campaign updated (polled, no public URL)',
		]);
	});

	it('every example carries a sticky note saying what it shows and how to run it', () => {
		for (const file of readdirSync(EXAMPLES_DIR).filter((name) => name.endsWith('.json'))) {
			const workflow = JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as {
				nodes: INode[];
			};
			const notes = workflow.nodes
				.filter((node) => node.type === 'n8n-nodes-base.stickyNote')
				.map((node) =>
					typeof node.parameters.content === 'string' ? node.parameters.content : '',
				);
			expect({
				file,
				notes: notes.length,
				runIt: notes.some((note) => /^## .+\n[\s\S]*\*\*Run it:\*\*/.test(note)),
			}).toEqual({ file, notes: 1, runIt: true });
			// A docs page a note names is a link a person can click, to a page that exists.
			const pages = notes.flatMap((note) => [
				...note.matchAll(/\[?docs\/[a-z-]+\.md\]?(\([^)]*\))?/g),
			]);
			for (const [mention, target] of pages) {
				const page = DOCS_PAGE.exec(target?.slice(1, -1) ?? '');
				expect({ file, mention, linked: page !== null }).toEqual({ file, mention, linked: true });
				expect(existsSync(join(ROOT, page?.[1] ?? ''))).toBe(true);
			}
		}
	});

	it.each(
		[action, trigger, new SvcPullTrigger()].map((node) => [node.description.displayName, node]),
	)(
		"%s lists an integer last among its versions: n8n 1.x's installer stores that entry in an integer column (PostgreSQL refuses 1.1)",
		(_name, node) => {
			const versions = [node.description.version].flat();
			expect(Number.isInteger(versions.at(-1))).toBe(true);
		},
	);

	it("no text the editor renders as HTML holds an angle-bracket placeholder: n8n drops '<your Base URL>' as an unknown tag", () => {
		// The tags n8n's descriptions may use; anything else between < and > disappears on the page.
		const allowed = /^<\/?(a|b|br|code|em|i|li|p|strong|ul)\b/;
		const found: string[] = [];
		const walk = (value: unknown, path: string): void => {
			if (typeof value === 'string') {
				for (const tag of value.match(/<[^<>]*>/g) ?? [])
					if (!allowed.test(tag)) found.push(`${path}: ${tag}`);
			} else if (Array.isArray(value))
				value.forEach((item, index) => walk(item, `${path}[${index}]`));
			else if (value && typeof value === 'object')
				for (const [key, item] of Object.entries(value)) walk(item, `${path}.${key}`);
		};
		for (const node of [action, trigger, new SvcPullTrigger()])
			walk(node.description, node.description.displayName);
		walk(new SvcApi(), 'Svc API credential');
		expect(found).toEqual([]);
	});

	it("the credential's form says to rotate a legacy key as it is entered, and shows nothing of it for a current key", () => {
		const credential = new SvcApi();
		const notice = credential.properties.find((property) => property.name === 'legacyKeyNotice');
		if (notice === undefined) throw new Error('no legacyKeyNotice');
		const shownFor = (apiKey: string): boolean =>
			NodeHelpers.displayParameter({ apiKey, baseUrl: '' }, notice, null, null);
		expect(notice.displayName).toMatch(/legacy ok_… API key.*rotate it/);
		expect([
			shownFor('ok_live_LegacyKey0000000000000001'),
			shownFor('ok_test_LegacyKey000000000001'),
		]).toEqual([true, true]);
		expect([
			shownFor('svc_live_CurrentKey00000000001'),
			shownFor(''),
			shownFor('my ok_ key'),
		]).toEqual([false, false, false]);
	});

	it('a new trigger is placed above version 1, which costs an expression per delivery; workflows saved with 1 still load', () => {
		// n8n 2.41 and 1.123, webhook-helpers parseRequestBody: `typeVersion === 1` evaluates the
		// Webhook node's old binary option for whatever node started the workflow.
		const placed = trigger.description.defaultVersion;
		expect(placed).toBeGreaterThan(1);
		expect([...(trigger.description.version as number[])].sort()).toEqual([1, placed]);
		for (const file of readdirSync(EXAMPLES_DIR).filter((name) => name.endsWith('.json'))) {
			const workflow = JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as {
				nodes: INode[];
			};
			const triggers = workflow.nodes.filter((node) => node.type === SVC_TRIGGER_TYPE);
			expect({ file, versions: triggers.map((node) => node.typeVersion) }).toEqual({
				file,
				versions: triggers.map(() => placed),
			});
		}
	});
});

describe('canvas subtitles', () => {
	const types: Record<string, INodeType> = {
		[action.description.name]: action,
		[trigger.description.name]: trigger,
	};
	const nodeTypes: INodeTypes = {
		getByName: (name) => types[name],
		getByNameAndVersion: (name) => types[name],
		getKnownTypes: (): IDataObject => ({}),
	};

	/** As the editor computes a subtitle (useNodeHelpers.getNodeSubtitle). */
	function subtitle(type: INodeType, parameters: INodeParameters): unknown {
		const node: INode = {
			id: 'n',
			name: 'Node',
			type: type.description.name,
			typeVersion: 1,
			position: [0, 0],
			parameters,
		};
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
		return workflow.expression.getSimpleParameterValue(
			node,
			type.description.subtitle,
			'internal',
			{},
			undefined,
			'[filled at execution time]',
		);
	}

	const choices = resources.flatMap((resource) =>
		resource.operations.map((operation) => ({
			resource: resource.option,
			operation: operation.option,
		})),
	);

	it.each(choices.map((choice) => [`${choice.resource.name}: ${choice.operation.name}`, choice]))(
		'%s reads as the choice, short enough for the canvas',
		(_label, { resource, operation }) => {
			const text = subtitle(action, { resource: resource.value, operation: operation.value });
			expect(typeof text).toBe('string');
			expect(String(text)).toMatch(new RegExp(`^${operation.name}`));
			expect(String(text).length).toBeLessThanOrEqual(SUBTITLE_MAX_LENGTH);
		},
	);

	it('tells every choice apart, and reads "Create or Update: Lead" for the lead upsert', () => {
		const texts = choices.map(({ resource, operation }) =>
			subtitle(action, { resource: resource.value, operation: operation.value }),
		);
		expect(new Set(texts).size).toBe(choices.length);
		expect(subtitle(action, { resource: 'lead', operation: 'upsert' })).toBe(
			'Create or Update: Lead',
		);
	});

	it.each(resources.map((resource) => [resource.option.name, String(resource.option.value)]))(
		'Custom API Call under %s names the node and the subtitle in words, and ends the list so n8n adds no second one',
		(_name, resourceValue) => {
			const parameters = { resource: resourceValue, operation: '__CUSTOM_API_CALL__' };
			// What n8n's editor renames a node with a default name to when the operation changes.
			expect(NodeHelpers.makeNodeName(parameters, action.description)).toBe('Custom API Call');
			expect(String(subtitle(action, parameters))).toMatch(/^Custom API Call/);
			const operation = action.description.properties.find(
				(property) =>
					property.name === 'operation' &&
					property.displayOptions?.show?.resource?.includes(resourceValue),
			);
			const names = (operation?.options ?? []).map((option) =>
				'name' in option ? option.name : '',
			);
			expect(names.at(-1)).toBe('Custom API Call');
			expect(names.filter((name) => name === 'Custom API Call')).toHaveLength(1);
		},
	);

	it("names the trigger's events as the list does, counting the rest, and how they come", () => {
		expect(subtitle(trigger, { events: ['lead.created'], otherEvents: '' })).toBe(
			'Lead Created · webhook',
		);
		expect(
			subtitle(trigger, { events: ['lead.created', 'campaign.updated'], otherEvents: '' }),
		).toBe('Lead Created +1 · webhook');
		expect(subtitle(trigger, { events: [], otherEvents: 'lead.updated, thread.closed' })).toBe(
			'lead.updated +1 · webhook',
		);
		expect(subtitle(trigger, { events: [], otherEvents: '' })).toBe('webhook');
		expect(subtitle(new SvcPullTrigger(), { events: ['lead.created'], otherEvents: '' })).toBe(
			'Lead Created · polled',
		);
	});
});

describe('documentation links', () => {
	const urls: Array<[string, string]> = [
		['credential documentationUrl', new SvcApi().documentationUrl],
		...Object.entries(codexes).flatMap(([file, data]): Array<[string, string]> => [
			...data.resources.primaryDocumentation.map(({ url }): [string, string] => [
				`${file} primaryDocumentation`,
				url,
			]),
			...data.resources.credentialDocumentation.map(({ url }): [string, string] => [
				`${file} credentialDocumentation`,
				url,
			]),
		]),
	];

	it.each(urls)(
		'%s points at a page of this repository that exists, without a fragment',
		(_what, url) => {
			expect(url).not.toContain('#');
			const page = DOCS_PAGE.exec(url);
			expect(page).not.toBeNull();
			expect(existsSync(join(ROOT, page?.[1] ?? ''))).toBe(true);
		},
	);

	it('package.json names one repository for homepage, repository and bugs, and no entry point', () => {
		const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
			main?: string;
			homepage: string;
			repository: { url: string };
			bugs: { url: string };
		};
		expect(pkg.main).toBeUndefined();
		expect(pkg.homepage).toBe(`${REPOSITORY}#readme`);
		expect(pkg.repository.url).toBe(`git+${REPOSITORY}.git`);
		expect(pkg.bugs.url).toBe(`${REPOSITORY}/issues`);
	});
});

describe('docs pages follow the code', () => {
	const read = (page: string) => readFileSync(join(ROOT, 'docs', page), 'utf8');

	it.each(Object.entries(ENDPOINTS))(
		'docs/operations.md lists %s with its method, path and scope',
		(_name, endpoint) => {
			const row = read('operations.md')
				.split('\n')
				.find((line) => line.includes(`\`${endpoint.method} ${endpoint.path}\``));
			expect(row).toBeDefined();
			expect(row).toContain(endpoint.scope ?? 'any');
		},
	);

	it('docs/sandbox.md documents every sandbox admin endpoint', () => {
		const section = read('sandbox.md').split('## Sandbox admin API')[1] ?? '';
		const missing = adminEndpoints().filter(
			({ method, path }) => !section.includes(`\`${method} ${path}\``),
		);
		expect(missing).toEqual([]);
	});
});
