/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- tooling that runs in Node.js beside n8n, never inside it */
/// <reference lib="dom" />
// The functions handed to page.evaluate and page.waitForFunction run in the browser: they need the DOM's types.

/**
 * A browser tab driven as a user drives it: click, type, read what the page shows. Every wait is
 * on the page, never on the clock.
 */
import { join } from 'node:path';

import type { Page } from 'puppeteer-core';
import { TimeoutError } from 'puppeteer-core';

export class BrowserPage {
	/** Numbers the elements clickText tags. */
	private clicks = 0;

	protected constructor(
		readonly page: Page,
		protected readonly baseUrl: string,
		private readonly screenshotDir: string,
	) {}

	async screenshot(name: string): Promise<void> {
		await this.page.screenshot({ path: join(this.screenshotDir, `${name}.png`) });
	}

	/** A screenshot of the first element matching `selector` alone (e.g. one panel), as `<name>.png`. */
	async screenshotOf(selector: string, name: string): Promise<void> {
		const element = await this.page.waitForSelector(selector, { visible: true });
		if (!element) throw new Error(`Nothing matches ${selector} for screenshot ${name}`);
		await element.screenshot({ path: join(this.screenshotDir, `${name}.png`) });
	}

	// -----------------------------------------------------------------------------------------
	// Reading and acting on the page

	/** The text the first element matching `selector` shows, or undefined when there is none. */
	async textOf(selector: string): Promise<string | undefined> {
		const element = await this.page.$(selector);
		if (!element) return undefined;
		return await element.evaluate((el) =>
			el instanceof HTMLElement ? el.innerText : (el.textContent ?? ''),
		);
	}

	/**
	 * Waits until the first element matching `selector` shows text matching `pattern`; returns that
	 * text. `clickWhileWaiting`: an element clicked at each check that does not match yet (a view
	 * switch the page may reset when new content arrives). `timeoutMs`: default, the page's (30 s).
	 */
	async waitForText(
		selector: string,
		pattern: RegExp,
		options: { clickWhileWaiting?: string; timeoutMs?: number } = {},
	): Promise<string> {
		try {
			const handle = await this.page.waitForFunction(
				(css: string, source: string, flags: string, toClick: string) => {
					const element = document.querySelector(css);
					const text = element instanceof HTMLElement ? element.innerText : '';
					if (new RegExp(source, flags).test(text)) return text;
					const control = toClick ? document.querySelector(toClick) : null;
					if (control instanceof HTMLElement) control.click();
					return '';
				},
				{ polling: options.clickWhileWaiting ? 250 : 'raf', timeout: options.timeoutMs },
				selector,
				pattern.source,
				pattern.flags,
				options.clickWhileWaiting ?? '',
			);
			return await handle.jsonValue();
		} catch (error) {
			if (!(error instanceof TimeoutError)) throw error;
			// The assertion message then says what the page showed instead.
			throw new Error(
				`${selector} did not show ${String(pattern)}; it shows: ${JSON.stringify((await this.textOf(selector)) ?? '(no such element)')}`,
			);
		}
	}

	/**
	 * Waits up to `timeout` ms for an element matching `selector` to be shown (or gone, with
	 * `shown` false); returns whether one is shown in the end, so a caller can assert on it.
	 */
	async waitForShown(selector: string, shown: boolean, timeout: number): Promise<boolean> {
		try {
			await this.page.waitForSelector(
				selector,
				shown ? { visible: true, timeout } : { hidden: true, timeout },
			);
		} catch (error) {
			if (!(error instanceof TimeoutError)) throw error;
		}
		const element = await this.page.$(selector);
		return element !== null && (await element.isVisible());
	}

	async click(selector: string, options: { count?: number } = {}): Promise<void> {
		await this.page.locator(selector).click(options);
	}

	/**
	 * Clicks the visible element matching `selector` whose whole text is `text`: many of n8n's
	 * buttons and menu items have no test id. The element found is tagged, so the click itself goes
	 * through puppeteer's locator, which waits until it stops moving (dropdowns and dialogs open
	 * with an animation).
	 */
	async clickText(selector: string, text: string): Promise<void> {
		const tag = `click-${++this.clicks}`;
		await this.page.waitForFunction(
			(css: string, wanted: string, value: string) => {
				const element = Array.from(document.querySelectorAll(css)).find(
					(candidate) =>
						candidate instanceof HTMLElement &&
						candidate.checkVisibility() &&
						candidate.innerText.trim() === wanted,
				);
				element?.setAttribute('data-editor-suite', value);
				return element !== undefined;
			},
			{},
			selector,
			text,
			tag,
		);
		await this.click(`[data-editor-suite="${tag}"]`);
	}

	/** Waits until the page itself has put the focus in the input matching `selector` (or the one inside it). */
	async waitForFocus(selector: string): Promise<void> {
		await this.page.waitForFunction(focusedInput, {}, selector);
	}

	/**
	 * Replaces an input's text as a user does: select all, then type over it (or delete it). n8n's
	 * inputs react to keystrokes, not to a value set from outside; and typing over the selection
	 * never leaves a required field empty on the way, which would drop a credential's test result.
	 * Returns once the input holds `text`.
	 */
	async replaceText(selector: string, text: string): Promise<void> {
		await this.focus(selector);
		await this.page.keyboard.down('Control');
		await this.page.keyboard.press('KeyA');
		await this.page.keyboard.up('Control');
		if (text === '') await this.page.keyboard.press('Backspace');
		else await this.page.keyboard.type(text);
		const held = await this.page.evaluate(focusedInput, selector);
		if (held?.value !== text)
			throw new Error(
				`Typed ${JSON.stringify(text)} into ${selector}; it holds ${held ? JSON.stringify(held.value) : 'nothing: the focus left it'}`,
			);
	}

	/**
	 * Clicks the input matching `selector` (or the one inside it) until it has the focus, at most
	 * 3 times: a panel that has just opened can render the input again right after the click
	 * (n8n's Batch Size, shown once Many is chosen), and keys typed then go nowhere.
	 */
	private async focus(selector: string): Promise<void> {
		for (let attempt = 1; ; attempt++) {
			// The same click as click(): a locator waits until the input stops moving (panels slide in).
			await this.click(selector);
			try {
				await this.page.waitForFunction(focusedInput, { timeout: 2_000 }, selector);
				return;
			} catch (error) {
				if (!(error instanceof TimeoutError) || attempt === 3)
					throw new Error(`${selector} did not take the focus in 3 clicks`, { cause: error });
			}
		}
	}
}

/** In the page: the focused input, when it is (or is inside) the element matching `css`; else null. */
function focusedInput(css: string): { value: string } | null {
	const container = document.querySelector(css);
	const focused = document.activeElement;
	if (
		!container ||
		!(focused instanceof HTMLInputElement || focused instanceof HTMLTextAreaElement)
	)
		return null;
	return container === focused || container.contains(focused) ? { value: focused.value } : null;
}
