/// <reference lib="dom" />
// The functions handed to page.evaluate and page.waitForFunction run in the browser: they need the DOM's types.

/** The Editor's node picker ("nodes panel"): searching it, reading its entries, adding nodes from it. */
import { CanvasPage } from './canvas';
import { byTestId, NDV } from './selectors';

const NODE_CREATOR = byTestId('node-creator');
const SEARCH_BAR = byTestId('node-creator-search-bar');
/** A node's entry in the node picker, by the name it shows; the package's two nodes have one each. */
const entryOf = (name: string): string =>
	`::-p-xpath(//*[@data-test-id="node-creator"]//*[@data-keyboard-nav-type="node"][.//*[@data-test-id="node-creator-item-name"][normalize-space()="${name}"]])`;
export const SVC_NAME = 'Svc';
export const SVC_TRIGGER_NAME = 'Svc Trigger';
/** n8n's node panel drops " Trigger" from a trigger's name: Svc Pull Trigger is listed as "Svc Pull". */
export const SVC_PULL_TRIGGER_NAME = 'Svc Pull';
/** The entry of n8n's tool copy of Svc (`n8n-nodes-svc.svcTool`) in an agent's Tools picker. */
export const SVC_TOOL_NAME = 'Svc Tool';
/** The entry's details have no test id for their description; its CSS-module class keeps this prefix. */
const DETAILS_DESCRIPTION = `${NODE_CREATOR} span[class*="_description_"]:not([data-test-id])`;

export interface PickerEntry {
	name: string;
	description: string;
}

export class NodePicker extends CanvasPage {
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
			description:
				el.querySelector('[data-test-id="node-creator-item-description"]')?.textContent?.trim() ??
				'',
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
		if (
			await this.page.$(
				`${NODE_CREATOR} [data-category-collapsed="true"] > [data-keyboard-nav-id="Actions"]`,
			)
		) {
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
			await this.page.waitForFunction(
				(css: string, count: number) => document.querySelectorAll(css).length < count,
				{},
				folded,
				left,
			);
		}
		return await this.page.$$eval(`${NODE_CREATOR} ${byTestId('item-iterator-item')}`, (items) =>
			items
				.filter(
					(item): item is HTMLElement => item instanceof HTMLElement && item.checkVisibility(),
				)
				.map((item) => item.innerText.trim()),
		);
	}

	/** The node entries the current search results show, top to bottom, by name. */
	async resultNames(): Promise<string[]> {
		return await this.page.$$eval(
			`${NODE_CREATOR} [data-keyboard-nav-type="node"] ${byTestId('node-creator-item-name')}`,
			(names) => names.map((name) => name.textContent?.trim() ?? ''),
		);
	}

	/**
	 * Opens the picker from the "+" under a canvas node's input of `connectionType` (e.g. an AI
	 * Agent's Tool connector, `ai_tool`); returns the title the picker shows (e.g. "Tools").
	 */
	async openInputPicker(nodeName: string, connectionType: string): Promise<string> {
		await this.click(
			`${byTestId('canvas-node-input-handle')}[data-node-name="${nodeName}"][data-connection-type="${connectionType}"] ${byTestId('canvas-handle-plus-wrapper')}`,
		);
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
		await this.page.waitForSelector(`${byTestId('canvas-node')}[data-node-type="${nodeType}"]`, {
			visible: true,
		});
		// The panel closes with an animation; a click on "+" before it is gone would not reopen it.
		await this.page.waitForSelector(NODE_CREATOR, { hidden: true });
	}
}
