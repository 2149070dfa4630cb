/// <reference lib="dom" />
// The functions handed to page.evaluate and page.waitForFunction run in the browser: they need the DOM's types.

/** The Editor's details view of a node (NDV): its parameters, resource locators, output and credential field. */
import { TimeoutError } from 'puppeteer-core';

import { NodePicker } from './node-picker';
import { byTestId, canvasNode, NDV } from './selectors';

const OUTPUT = byTestId('output-panel');

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

/** One option of an open list, as shown: `whole` is false when its description is cut short. */
export interface ListedOption {
	name: string;
	description: string;
	whole: boolean;
}

export interface NodeCredentialField {
	/** The credential the node's Credential field shows as selected, if any. */
	selected?: string;
	/** True when the field offers "Connect to …" instead: the node has no usable credential. */
	empty: boolean;
}

export class NodeDetails extends NodePicker {
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
		const input = await this.page.waitForSelector(`${byTestId(`parameter-input-${name}`)} input`, {
			visible: true,
		});
		if (!input) throw new Error(`No input for parameter ${name}`);
		return await input.evaluate((el) => (el instanceof HTMLInputElement ? el.value : ''));
	}

	/** The whole text of what the open node shows beginning with `start` (a notice, a hint), once shown. */
	async shownText(start: string): Promise<string> {
		const found = await this.page.waitForFunction(
			(css: string, wanted: string) => {
				const shown = Array.from(document.querySelectorAll(css)).filter(
					(element): element is HTMLElement =>
						element instanceof HTMLElement && element.innerText.trim().startsWith(wanted),
				);
				// The innermost element holding it, not the panel around it.
				const innermost = shown.find(
					(element) => !shown.some((other) => other !== element && element.contains(other)),
				);
				return innermost?.checkVisibility() ? innermost.innerText.trim() : undefined;
			},
			{},
			`${NDV} *`,
			start,
		);
		return (await found.jsonValue()) as string;
	}

	/**
	 * The tooltip n8n shows over the "?" beside parameter `name`'s label (its description), as
	 * shown, and in how many lines; it stays open until dismissTooltip.
	 */
	async parameterTooltip(name: string): Promise<{ text: string; lines: number }> {
		const label = `${parameterItem(name)} ${byTestId('input-label')}`;
		// n8n draws the "?" only while the pointer is over the label.
		await this.page.hover(`${label} label[for="${name}"]`);
		await this.page.hover(`${label} [class*="_infoIcon_"]`);
		const shown = await this.page.waitForFunction(() => {
			// The label's tooltip content carries its own class (n8n's input label, `tooltipPopper`).
			const tooltip = Array.from(document.querySelectorAll('[class*="_tooltipPopper_"]')).find(
				(element): element is HTMLElement =>
					element instanceof HTMLElement && element.checkVisibility(),
			);
			const content = tooltip?.querySelector('div') ?? tooltip;
			if (!content || content.innerText.trim() === '') return undefined;
			const lineHeight = parseFloat(getComputedStyle(content).lineHeight);
			return {
				text: content.innerText.trim(),
				lines: Math.round(content.getBoundingClientRect().height / lineHeight),
			};
		});
		return (await shown.jsonValue()) as { text: string; lines: number };
	}

	/** Moves the pointer away until no label tooltip shows (the next one read is then its own). */
	async dismissTooltip(): Promise<void> {
		await this.page.mouse.move(0, 0);
		await this.page.waitForFunction(
			() =>
				!Array.from(document.querySelectorAll('[class*="_tooltipPopper_"]')).some(
					(element) => element instanceof HTMLElement && element.checkVisibility(),
				),
		);
	}

	/** Picks `option` in a parameter's dropdown; returns, once the parameter shows it, the options the list showed. */
	async chooseOption(parameter: string, option: string): Promise<ListedOption[]> {
		await this.click(byTestId(`parameter-input-${parameter}`));
		const item = 'li.el-select-dropdown__item[role="option"]';
		// Other selects' lists stay in the page, hidden: wait for an item of the one just opened.
		await this.page.waitForFunction(
			(css: string) =>
				Array.from(document.querySelectorAll(css)).some((li) => li.checkVisibility()),
			{},
			item,
		);
		// What the open list shows of each option: its name, and its description (n8n clamps it to
		// two lines, ending in "…" where it is longer).
		const listed = await this.page.$$eval(item, (items) =>
			items
				.filter((li) => li.checkVisibility())
				.map((li) => {
					const description = li.querySelector('.option-description');
					return {
						name: li.querySelector('.option-headline')?.textContent?.trim() ?? '',
						description: description?.textContent?.trim() ?? '',
						whole:
							!(description instanceof HTMLElement) ||
							(description.scrollHeight <= description.clientHeight + 1 &&
								description.scrollWidth <= description.clientWidth + 1),
					};
				}),
		);
		// By the option's name alone: options with a description (operations) show it under the name.
		await this.clickText(`${item} .option-headline`, option);
		await this.page.waitForFunction(
			(css: string, wanted: string) => {
				const input = document.querySelector(css);
				return input instanceof HTMLInputElement && input.value === wanted;
			},
			{},
			`${byTestId(`parameter-input-${parameter}`)} input`,
			option,
		);
		return listed;
	}

	/** Adds the field shown as `field` (e.g. "Email") to the collection parameter `collection` (e.g. filters). */
	async addCollectionField(collection: string, field: string): Promise<void> {
		const option = `li${byTestId('collection-parameter-option')}`;
		await this.click(`${parameterItem(collection)} ${byTestId('collection-parameter-add')}`);
		await this.clickText(option, field);
		// The list fades out over the new field for a moment: a click meant for the field would land on it.
		await this.page.waitForFunction(
			(css: string) =>
				!Array.from(document.querySelectorAll(css)).some(
					(item) => item instanceof HTMLElement && item.checkVisibility(),
				),
			{},
			option,
		);
		await this.page.waitForFunction(
			(css: string, label: string) =>
				Array.from(document.querySelectorAll(css)).some(
					(name) => name.textContent?.trim() === label,
				),
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
					label:
						el.querySelector(`label[for="${parameter}"] ${labelName}`)?.textContent?.trim() ?? '',
					modelFill: el.querySelector('[data-test-id="from-ai-override-button"]') !== null,
					expressionSwitch:
						el.querySelector(
							`[data-test-id="${parameter}-parameter-input-options-container"] [data-test-id="radio-button-expression"]`,
						) !== null,
				};
				return override instanceof HTMLElement
					? { ...controls, definedByModel: override.innerText.trim() }
					: controls;
			},
			name,
			LABEL_NAME,
		);
	}

	/** Clicks parameter `name`'s "Let the model define this parameter" button; returns once n8n shows the parameter as the model's. */
	async letModelDefine(name: string): Promise<void> {
		await this.click(`${parameterItem(name)} ${byTestId('from-ai-override-button')}`);
		await this.page.waitForSelector(`${parameterItem(name)} ${byTestId('fromAI-override-field')}`, {
			visible: true,
		});
	}

	/** A screenshot of the open node's parameters column alone (no test id: n8n's class for it). */
	async screenshotParameters(name: string): Promise<void> {
		await this.screenshotOf(`${NDV} .node-settings`, name);
	}

	/** "Execute step" in the open node; on a trigger node this is "Listen for test event". */
	async executeStep(): Promise<void> {
		await this.click(`${NDV} ${byTestId('node-execute-button')}`);
	}

	/**
	 * "Execute step" until the output panel matches `pattern` (at most 3 times); returns its text.
	 * For a value just typed into the panel: n8n applies a typed value a moment after the last
	 * keystroke (its inputs debounce), and a step executed before then runs with the one before.
	 */
	async executeStepUntilOutput(pattern: RegExp): Promise<string> {
		for (let attempt = 1; attempt < 3; attempt++) {
			await this.executeStep();
			const shown = await this.waitForOutput(pattern, 10_000).catch(() => undefined);
			if (shown !== undefined) return shown;
		}
		await this.executeStep();
		return await this.waitForOutput(pattern);
	}

	/** Waits until the output panel, shown as JSON, matches `pattern` (default timeout: the page's); returns its text. */
	async waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string> {
		// n8n can render data that arrives after the switch to JSON in its default table (seen once
		// with Svc Pull Trigger's Fetch Test Event), so the switch is made again until the JSON shows.
		const json = `${OUTPUT} ${byTestId('radio-button-json')}`;
		await this.click(json);
		return await this.waitForText(`${OUTPUT} ${byTestId('ndv-data-container')}`, pattern, {
			clickWhileWaiting: json,
			timeoutMs,
		});
	}

	/** Waits until the open node's output pane (its data, an error, the hints under it) matches `pattern`; returns its text. */
	async waitForOutputPane(pattern: RegExp): Promise<string> {
		return await this.waitForText(OUTPUT, pattern);
	}

	/** Opens the open trigger's "When will this node trigger my flow?" and waits until the panel shows `pattern`; returns the panel's text. */
	async triggerHelp(pattern: RegExp): Promise<string> {
		await this.clickText(`${NDV} *`, 'When will this node trigger my flow?');
		return await this.waitForText(NDV, pattern);
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
		await this.page.waitForSelector(`${NDV} ${byTestId('node-credentials-slot')}`, {
			visible: true,
		});
		const select = await this.page.$(`${NDV} ${byTestId('node-credentials-select')} input`);
		const selected = select
			? await select.evaluate((el) => (el instanceof HTMLInputElement ? el.value : ''))
			: undefined;
		return {
			selected,
			empty: (await this.page.$(`${NDV} ${byTestId('node-credentials-empty-state')}`)) !== null,
		};
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
		return await this.page.$$eval(byTestId('rlc-item'), (items) =>
			items.map((item) => (item instanceof HTMLElement ? item.innerText.trim() : '')),
		);
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
					JSON.stringify(
						Array.from(document.querySelectorAll('[data-test-id="rlc-item"]')).map((item) =>
							item instanceof HTMLElement ? item.innerText.trim() : '',
						),
					) === wanted,
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
		await this.click(
			`${byTestId(`parameter-input-${parameter}`)} ${byTestId('rlc-mode-selector')}`,
		);
		await this.click(`li${byTestId(`mode-${mode}`)}`);
	}

	/**
	 * Types into the parameter's input; returns whether n8n then flags an issue on it. The input
	 * hands the value on after a debounce, so this waits up to 5 s for the marker to be as `expected`.
	 */
	async enterLocatorValue(
		parameter: string,
		value: string,
		expected: { issue: boolean },
	): Promise<boolean> {
		const container = byTestId(`parameter-input-${parameter}`);
		await this.replaceText(`${container} ${byTestId('rlc-input')}`, value);
		return await this.waitForShown(
			`${container} ${byTestId('parameter-issues')}`,
			expected.issue,
			5_000,
		);
	}
}
