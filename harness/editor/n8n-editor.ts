/// <reference lib="dom" />
// The functions handed to page.evaluate and page.waitForFunction run in the browser: they need the DOM's types.

/**
 * Drives n8n 2.41's editor in a real Chromium through puppeteer-core, the way a user does: click,
 * type, read what the page shows. Elements are found by the data-test-id attributes n8n's own
 * end-to-end tests use; where n8n gives none, by visible text or a CSS-module class prefix (said
 * where). Every wait is on the page, never on the clock: editor pages take 8–10 s on 2 cores.
 */
import { mkdir } from 'node:fs/promises';

import type { Browser } from 'puppeteer-core';
import { TimeoutError } from 'puppeteer-core';

import { BrowserPage } from './page';

/** CSS for the element n8n marks with `data-test-id="<id>"`. */
export function byTestId(id: string): string {
	return `[data-test-id="${id}"]`;
}

/** CSS for a node on the canvas, by its name. */
function canvasNode(name: string): string {
	return `${byTestId('canvas-node')}[data-node-name="${name}"]`;
}

const NODE_CREATOR = byTestId('node-creator');
const SEARCH_BAR = byTestId('node-creator-search-bar');
/** A node's entry in the node picker, by the name it shows; the package's two nodes have one each. */
const entryOf = (name: string): string =>
	`::-p-xpath(//*[@data-test-id="node-creator"]//*[@data-keyboard-nav-type="node"][.//*[@data-test-id="node-creator-item-name"][normalize-space()="${name}"]])`;
export const SVC_NAME = 'Svc';
export const SVC_TRIGGER_NAME = 'Svc Trigger';
/** The entry of n8n's tool copy of Svc (`n8n-nodes-svc.svcTool`) in an agent's Tools picker. */
export const SVC_TOOL_NAME = 'Svc Tool';
/** The entry's details have no test id for their description; its CSS-module class keeps this prefix. */
const DETAILS_DESCRIPTION = `${NODE_CREATOR} span[class*="_description_"]:not([data-test-id])`;
const NDV = byTestId('ndv');
const OUTPUT = byTestId('output-panel');
const PUBLISH_BUTTON = byTestId('workflow-open-publish-modal-button');
const CREDENTIAL_DIALOG = byTestId('credential-edit-dialog');
/** Where the credential modal shows the result of n8n's connection test. */
export const CREDENTIAL_TEST = byTestId('node-credentials-config-container');

export interface PickerEntry {
	name: string;
	description: string;
}

/** What the open node offers for one parameter, as n8n draws it beside the parameter's label and input. */
export interface ParameterControls {
	label: string;
	/** n8n's "Let the model define this parameter" (sparkle) button, offered on AI tool nodes. */
	modelFill: boolean;
	/** The Fixed / Expression switch above the input (drawn on hover, present in the page all along). */
	expressionSwitch: boolean;
	/** What n8n shows in place of the input once the model defines the parameter, if it does. */
	definedByModel?: string;
}

/** An edge into a canvas node: where it comes from and its connection type (main, ai_tool, …). */
export interface CanvasEdge {
	source: string;
	type: string;
}

/**
 * Within a parameter's label, the element holding its name: the first text. The label also holds
 * the parameter's switches (Fixed / Expression), whose text shows while the pointer is over it.
 */
const LABEL_NAME = 'span.n8n-text';

/**
 * CSS for the open node's row of parameter `name` (its label, switches and input); rows of a
 * collection's fields sit inside the collection's row, so the label must be the row's own.
 */
function parameterItem(name: string): string {
	return `${NDV} ${byTestId('parameter-item')}:has(> * > ${byTestId('input-label')} label[for="${name}"])`;
}

export interface NodeCredentialField {
	/** The credential the node's Credential field shows as selected, if any. */
	selected?: string;
	/** True when the field offers "Connect to …" instead: the node has no usable credential. */
	empty: boolean;
}

export class Editor extends BrowserPage {
	/** A new tab on `baseUrl`; screenshots go to `screenshotDir`. */
	static async open(browser: Browser, baseUrl: string, screenshotDir: string): Promise<Editor> {
		await mkdir(screenshotDir, { recursive: true });
		const page = await browser.newPage();
		// A page load takes 8–10 s on 2 cores: three times that before any wait gives up.
		page.setDefaultTimeout(30_000);
		// Leaving a workflow with unsaved changes asks the browser to confirm; an unanswered dialog
		// would freeze the page (and its screenshots) for the rest of the suite.
		page.on('dialog', (dialog) => void dialog.accept());
		return new Editor(page, baseUrl, screenshotDir);
	}

	// -----------------------------------------------------------------------------------------
	// Pages

	/** Logs in through the real sign-in page. */
	async logIn(email: string, password: string): Promise<void> {
		await this.page.goto(`${this.baseUrl}/signin`);
		await this.replaceText(`${byTestId('emailOrLdapLoginId')} input`, email);
		await this.replaceText(`${byTestId('password')} input`, password);
		await this.click(byTestId('form-submit-button'));
		// 2.41 lands on its Assistant page or on the overview: both have the main sidebar.
		await this.page.waitForFunction(() => !location.pathname.startsWith('/signin'));
		await this.page.waitForSelector(byTestId('project-home-menu-item'), { visible: true });
	}

	async openWorkflow(workflowId: string): Promise<void> {
		await this.page.goto(`${this.baseUrl}/workflow/${workflowId}`);
		await this.page.waitForSelector(byTestId('canvas-node'), { visible: true });
	}

	async newWorkflow(): Promise<void> {
		await this.page.goto(`${this.baseUrl}/workflow/new`);
		await this.page.waitForSelector(byTestId('node-creator-plus-button'), { visible: true });
	}

	// -----------------------------------------------------------------------------------------
	// The node picker ("nodes panel")

	async openNodeCreator(): Promise<void> {
		await this.click(byTestId('node-creator-plus-button'));
		await this.page.waitForSelector(SEARCH_BAR, { visible: true });
	}

	/** Searches the open picker for `term`; true when the results list the package's entry. */
	async searchListsSvc(term: string, name = SVC_NAME): Promise<boolean> {
		const entrySelector = entryOf(name);
		// Empty the search and see the entry go first: the results shown next are then for `term`,
		// not the previous search's still on screen.
		await this.replaceText(SEARCH_BAR, '');
		await this.page.waitForSelector(entrySelector, { hidden: true });
		await this.page.keyboard.type(term);
		// The results render at once; 5 s covers a busy machine before calling the entry absent.
		return await this.waitForShown(entrySelector, true, 5_000);
	}

	/** The package's entry in the current results. */
	async svcEntry(name = SVC_NAME): Promise<PickerEntry> {
		const entrySelector = entryOf(name);
		const entry = await this.page.waitForSelector(entrySelector, { visible: true });
		if (!entry) throw new Error('The picker lists no Svc entry');
		return await entry.evaluate((el) => ({
			name: el.querySelector('[data-test-id="node-creator-item-name"]')?.textContent?.trim() ?? '',
			description: el.querySelector('[data-test-id="node-creator-item-description"]')?.textContent?.trim() ?? '',
		}));
	}

	/** Opens the entry's details (its actions and trigger); returns the description they show. */
	async openSvcDetails(name = SVC_NAME): Promise<string> {
		await this.click(entryOf(name));
		await this.page.waitForSelector(DETAILS_DESCRIPTION, { visible: true });
		return (await this.textOf(DETAILS_DESCRIPTION))?.trim() ?? '';
	}

	/** In the open details, picks an action (e.g. "Create or update a lead"): n8n adds the node and opens it. */
	async chooseAction(action: string): Promise<void> {
		// Beside a trigger-less workflow n8n folds the actions away under "Actions (n)".
		if (await this.page.$(`${NODE_CREATOR} [data-category-collapsed="true"] > [data-keyboard-nav-id="Actions"]`)) {
			await this.click(`${NODE_CREATOR} [data-keyboard-nav-id="Actions"]`);
		}
		await this.clickText(`${NODE_CREATOR} ${byTestId('item-iterator-item')}`, action);
		await this.page.waitForSelector(`${NDV} ${byTestId('node-parameters')}`, { visible: true });
	}

	/** What the open details list, triggers and actions alike, top to bottom, with folded categories opened. */
	async detailsEntries(): Promise<string[]> {
		const folded = `${NODE_CREATOR} [data-category-collapsed="true"] > [data-keyboard-nav-id]`;
		for (let left = (await this.page.$$(folded)).length; left > 0; left--) {
			await this.click(folded);
			await this.page.waitForFunction((css: string, count: number) => document.querySelectorAll(css).length < count, {}, folded, left);
		}
		return await this.page.$$eval(`${NODE_CREATOR} ${byTestId('item-iterator-item')}`, (items) =>
			items.filter((item): item is HTMLElement => item instanceof HTMLElement && item.checkVisibility()).map((item) => item.innerText.trim()),
		);
	}

	/** The node entries the current search results show, top to bottom, by name. */
	async resultNames(): Promise<string[]> {
		return await this.page.$$eval(`${NODE_CREATOR} [data-keyboard-nav-type="node"] ${byTestId('node-creator-item-name')}`, (names) => names.map((name) => name.textContent?.trim() ?? ''));
	}

	/**
	 * Opens the picker from the "+" under a canvas node's input of `connectionType` (e.g. an AI
	 * Agent's Tool connector, `ai_tool`); returns the title the picker shows (e.g. "Tools").
	 */
	async openInputPicker(nodeName: string, connectionType: string): Promise<string> {
		await this.click(`${byTestId('canvas-node-input-handle')}[data-node-name="${nodeName}"][data-connection-type="${connectionType}"] ${byTestId('canvas-handle-plus-wrapper')}`);
		// The panel slides in over the one the picker showed last: wait for the panel of this connection type.
		const panel = `${NODE_CREATOR} .nodes-list-panel-${connectionType}`;
		await this.page.waitForSelector(`${panel} ${SEARCH_BAR}`, { visible: true });
		return (await this.textOf(`${panel} ${byTestId('nodes-list-header')}`))?.trim() ?? '';
	}

	/** Picks an entry that has no actions to choose (as the Tools picker lists Svc Tool): n8n adds the node and opens it. */
	async addFromPicker(name: string): Promise<void> {
		await this.click(entryOf(name));
		await this.page.waitForSelector(`${NDV} ${byTestId('node-parameters')}`, { visible: true });
	}

	/** Adds a node from the picker by its type (e.g. n8n-nodes-base.manualTrigger) after searching `term`. */
	async addNode(term: string, nodeType: string): Promise<void> {
		await this.openNodeCreator();
		await this.replaceText(SEARCH_BAR, term);
		await this.click(`${NODE_CREATOR} [data-keyboard-nav-id^="${nodeType}-"]`);
		await this.page.waitForSelector(`${byTestId('canvas-node')}[data-node-type="${nodeType}"]`, { visible: true });
		// The panel closes with an animation; a click on "+" before it is gone would not reopen it.
		await this.page.waitForSelector(NODE_CREATOR, { hidden: true });
	}

	// -----------------------------------------------------------------------------------------
	// A node's details view (NDV)

	async openNode(name: string): Promise<void> {
		await this.click(canvasNode(name), { count: 2 });
		await this.page.waitForSelector(`${NDV} ${byTestId('node-parameters')}`, { visible: true });
	}

	async closeNode(): Promise<void> {
		await this.click(byTestId('ndv-close-button'));
		await this.page.waitForSelector(NDV, { hidden: true });
	}

	/** What a parameter's input shows (e.g. "Lead" for resource). */
	async parameterText(name: string): Promise<string> {
		const input = await this.page.waitForSelector(`${byTestId(`parameter-input-${name}`)} input`, { visible: true });
		if (!input) throw new Error(`No input for parameter ${name}`);
		return await input.evaluate((el) => (el instanceof HTMLInputElement ? el.value : ''));
	}

	/** Picks `option` in a parameter's dropdown; returns once the parameter shows it. */
	async chooseOption(parameter: string, option: string): Promise<void> {
		await this.click(byTestId(`parameter-input-${parameter}`));
		// By the option's name alone: options with a description (operations) show it under the name.
		await this.clickText('li.el-select-dropdown__item[role="option"] .option-headline', option);
		await this.page.waitForFunction(
			(css: string, wanted: string) => {
				const input = document.querySelector(css);
				return input instanceof HTMLInputElement && input.value === wanted;
			},
			{},
			`${byTestId(`parameter-input-${parameter}`)} input`,
			option,
		);
	}

	/** Adds the field shown as `field` (e.g. "Email") to the collection parameter `collection` (e.g. filters). */
	async addCollectionField(collection: string, field: string): Promise<void> {
		const option = `li${byTestId('collection-parameter-option')}`;
		await this.click(`${parameterItem(collection)} ${byTestId('collection-parameter-add')}`);
		await this.clickText(option, field);
		// The list fades out over the new field for a moment: a click meant for the field would land on it.
		await this.page.waitForFunction((css: string) => !Array.from(document.querySelectorAll(css)).some((item) => item instanceof HTMLElement && item.checkVisibility()), {}, option);
		await this.page.waitForFunction(
			(css: string, label: string) => Array.from(document.querySelectorAll(css)).some((name) => name.textContent?.trim() === label),
			{},
			`${parameterItem(collection)} ${byTestId('parameter-item')} label ${LABEL_NAME}`,
			field,
		);
	}

	/** What the open node shows for parameter `name`, once its row is on screen. */
	async parameterControls(name: string): Promise<ParameterControls> {
		const item = await this.page.waitForSelector(parameterItem(name), { visible: true });
		if (!item) throw new Error(`The open node shows no parameter ${name}`);
		return await item.evaluate(
			(el, parameter: string, labelName: string) => {
				const override = el.querySelector('[data-test-id="fromAI-override-field"]');
				const controls = {
					label: el.querySelector(`label[for="${parameter}"] ${labelName}`)?.textContent?.trim() ?? '',
					modelFill: el.querySelector('[data-test-id="from-ai-override-button"]') !== null,
					expressionSwitch: el.querySelector(`[data-test-id="${parameter}-parameter-input-options-container"] [data-test-id="radio-button-expression"]`) !== null,
				};
				return override instanceof HTMLElement ? { ...controls, definedByModel: override.innerText.trim() } : controls;
			},
			name,
			LABEL_NAME,
		);
	}

	/** Clicks parameter `name`'s "Let the model define this parameter" button; returns once n8n shows the parameter as the model's. */
	async letModelDefine(name: string): Promise<void> {
		await this.click(`${parameterItem(name)} ${byTestId('from-ai-override-button')}`);
		await this.page.waitForSelector(`${parameterItem(name)} ${byTestId('fromAI-override-field')}`, { visible: true });
	}

	/** A screenshot of the open node's parameters column alone (no test id: n8n's class for it). */
	async screenshotParameters(name: string): Promise<void> {
		await this.screenshotOf(`${NDV} .node-settings`, name);
	}

	/** "Execute step" in the open node; on a trigger node this is "Listen for test event". */
	async executeStep(): Promise<void> {
		await this.click(`${NDV} ${byTestId('node-execute-button')}`);
	}

	/** Waits until the output panel, shown as JSON, matches `pattern`; returns its text. */
	async waitForOutput(pattern: RegExp): Promise<string> {
		await this.click(`${OUTPUT} ${byTestId('radio-button-json')}`);
		return await this.waitForText(`${OUTPUT} ${byTestId('ndv-data-container')}`, pattern);
	}

	/** Waits until the open node's output pane shows an error matching `pattern`; returns the pane's text. */
	async waitForError(pattern: RegExp): Promise<string> {
		return await this.waitForText(OUTPUT, pattern);
	}

	/** The open trigger listens for a test event (after executeStep). */
	async waitUntilListening(): Promise<void> {
		await this.page.waitForSelector(`${NDV} ${byTestId('trigger-listening')}`, { visible: true });
	}

	async stopListening(): Promise<void> {
		await this.click(`${NDV} ${byTestId('trigger-execute-button')}`);
		await this.page.waitForSelector(`${NDV} ${byTestId('trigger-listening')}`, { hidden: true });
	}

	/** The open node's Credential field. */
	async credentialField(): Promise<NodeCredentialField> {
		await this.page.waitForSelector(`${NDV} ${byTestId('node-credentials-slot')}`, { visible: true });
		const select = await this.page.$(`${NDV} ${byTestId('node-credentials-select')} input`);
		const selected = select ? await select.evaluate((el) => (el instanceof HTMLInputElement ? el.value : '')) : undefined;
		return { selected, empty: (await this.page.$(`${NDV} ${byTestId('node-credentials-empty-state')}`)) !== null };
	}

	// -----------------------------------------------------------------------------------------
	// The resource locator ("Lead" picker) of the open node

	/** Opens the parameter's "From List" dropdown; returns the items once some are shown. */
	async openLocatorList(parameter: string): Promise<string[]> {
		await this.click(`${byTestId(`parameter-input-${parameter}`)} ${byTestId('rlc-input')}`);
		await this.page.waitForSelector(byTestId('rlc-item'), { visible: true });
		return await this.locatorItems();
	}

	async locatorItems(): Promise<string[]> {
		return await this.page.$$eval(byTestId('rlc-item'), (items) => items.map((item) => (item instanceof HTMLElement ? item.innerText.trim() : '')));
	}

	/**
	 * Types in the open list's search box; returns the items once they are `expected`, or after
	 * 10 s whatever is shown, for the caller's assertion to report.
	 */
	async searchLocatorList(text: string, expected: string[]): Promise<string[]> {
		await this.replaceText(byTestId('rlc-search'), text);
		await this.page
			.waitForFunction(
				(wanted: string) =>
					JSON.stringify(Array.from(document.querySelectorAll('[data-test-id="rlc-item"]')).map((item) => (item instanceof HTMLElement ? item.innerText.trim() : ''))) === wanted,
				{ timeout: 10_000 },
				JSON.stringify(expected),
			)
			.catch((error: unknown) => {
				if (!(error instanceof TimeoutError)) throw error;
			});
		return await this.locatorItems();
	}

	/** Switches the parameter's mode ("From list", "By ID", "By URL"). */
	async chooseLocatorMode(parameter: string, mode: 'list' | 'id' | 'url'): Promise<void> {
		await this.click(`${byTestId(`parameter-input-${parameter}`)} ${byTestId('rlc-mode-selector')}`);
		await this.click(`li${byTestId(`mode-${mode}`)}`);
	}

	/**
	 * Types into the parameter's input; returns whether n8n then flags an issue on it. The input
	 * hands the value on after a debounce, so this waits up to 5 s for the marker to be as `expected`.
	 */
	async enterLocatorValue(parameter: string, value: string, expected: { issue: boolean }): Promise<boolean> {
		const container = byTestId(`parameter-input-${parameter}`);
		await this.replaceText(`${container} ${byTestId('rlc-input')}`, value);
		return await this.waitForShown(`${container} ${byTestId('parameter-issues')}`, expected.issue, 5_000);
	}

	// -----------------------------------------------------------------------------------------
	// The canvas

	/** The subtitle under a canvas node (the operation line); its element has no test id, only a CSS-module class with this prefix. */
	async canvasSubtitle(nodeSelector: string): Promise<string> {
		return (await this.textOf(`${nodeSelector} [class*="_subtitle_"]`))?.trim() ?? '';
	}

	/** The type of the canvas node named `name` (e.g. n8n-nodes-svc.svcTool), once it is on the canvas. */
	async canvasNodeType(name: string): Promise<string> {
		const node = await this.page.waitForSelector(canvasNode(name), { visible: true });
		return (await node?.evaluate((el) => el.getAttribute('data-node-type'))) ?? '';
	}

	/** The edges the canvas draws into node `target`. */
	async edgesInto(target: string): Promise<CanvasEdge[]> {
		return await this.page.$$eval(`${byTestId('edge')}[data-target-node-name="${target}"]`, (edges) =>
			edges.map((edge) => ({
				source: edge.getAttribute('data-source-node-name') ?? '',
				// The edge's group is keyed "[<source id>/outputs/<type>/<index>][<target id>/inputs/<type>/<index>]".
				type: /\/outputs\/([^/]+)\//.exec(edge.closest('.vue-flow__edge')?.getAttribute('data-id') ?? '')?.[1] ?? '',
			})),
		);
	}

	/** Waits until the canvas shows `count` nodes; returns the names of those with an issue marker. */
	async nodesWithIssues(count: number): Promise<string[]> {
		await this.page.waitForFunction((expected: number) => document.querySelectorAll('[data-test-id="canvas-node"]').length === expected, {}, count);
		return await this.page.$$eval(byTestId('canvas-node'), (nodes) =>
			nodes.filter((node) => node.querySelector('[data-test-id="node-issues"]') !== null).map((node) => node.getAttribute('data-node-name') ?? ''),
		);
	}

	// -----------------------------------------------------------------------------------------
	// Publishing

	/** Publish, naming the version as n8n 2.x asks; returns once the header says Published. */
	async publish(versionName: string): Promise<void> {
		await this.click(PUBLISH_BUTTON);
		await this.replaceText(byTestId('workflow-publish-version-name-input'), versionName);
		await this.click(byTestId('workflow-publish-button'));
		// For a workflow with a trigger n8n explains that production runs are listed under Executions.
		await this.clickText(`${byTestId('activation-modal')} button`, 'Got it');
		await this.waitForText(PUBLISH_BUTTON, /^\s*Published\s*$/);
	}

	async unpublish(): Promise<void> {
		await this.click(byTestId('version-menu-button'));
		await this.click(byTestId('version-menu-item-unpublish'));
		await this.clickText(`${byTestId('workflow-history-version-unpublish-modal')} button`, 'Unpublish');
		await this.waitForText(PUBLISH_BUTTON, /^\s*Publish\s*$/);
	}

	// -----------------------------------------------------------------------------------------
	// Credentials

	/** Opens a credential's modal; n8n tests the stored credential as it opens. */
	async openCredential(credentialId: string): Promise<void> {
		await this.page.goto(`${this.baseUrl}/home/credentials/${credentialId}`);
		await this.page.waitForSelector(CREDENTIAL_DIALOG, { visible: true });
	}

	/** Puts `value` into the open credential's `field` (unsaved) and runs n8n's connection test on it ("Retry"). */
	async testCredentialWith(field: 'apiKey' | 'baseUrl', value: string): Promise<void> {
		await this.replaceText(`${CREDENTIAL_DIALOG} ${byTestId(`parameter-input-${field}`)} input`, value);
		// The field hands its value on after a debounce, so a test started at once can still send
		// the previous value: test again until n8n has tested this one.
		for (let attempt = 1; ; attempt++) {
			const tested = this.page.waitForResponse((response) => response.url().endsWith('/rest/credentials/test'));
			await this.click(`${CREDENTIAL_TEST} button[title="Retry credential test"]`);
			if (credentialFieldTested((await tested).request().postData(), field) === value) return;
			if (attempt === 5) throw new Error(`n8n kept testing the previous ${field}`);
		}
	}

	/** Unfolds a failed test's message ("More details"). */
	async showCredentialTestDetails(): Promise<void> {
		await this.clickText(`${CREDENTIAL_TEST} a`, 'More details');
	}

	/** Closes the credential modal and throws the edits away. */
	async discardCredentialChanges(): Promise<void> {
		await this.click(`.el-dialog:has(${CREDENTIAL_DIALOG}) .el-dialog__headerbtn`);
		await this.clickText('.el-message-box button', 'Close');
		await this.page.waitForSelector(CREDENTIAL_DIALOG, { hidden: true });
	}
}

/** A field of the credential a POST /rest/credentials/test body carried. */
function credentialFieldTested(body: string | undefined, field: string): unknown {
	const parsed = JSON.parse(body ?? '{}') as { credentials?: { data?: Record<string, unknown> } };
	return parsed.credentials?.data?.[field];
}
