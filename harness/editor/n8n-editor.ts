/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * Drives n8n 2.41's editor in a real Chromium through puppeteer-core, the way a user does: click,
 * type, read what the page shows. Elements are found by the data-test-id attributes n8n's own
 * end-to-end tests use; where n8n gives none, by visible text or a CSS-module class prefix (said
 * where). Every wait is on the page, never on the clock: editor pages take 8–10 s on 2 cores.
 *
 * Editor is one class whose methods are split by job, a file each, every one extending the last:
 * canvas.ts (pages, canvas), node-picker.ts, node-details.ts (NDV, resource locator), and this
 * file (publishing, credentials).
 */
import { mkdir } from 'node:fs/promises';

import type { Browser } from 'puppeteer-core';

import { NodeDetails } from './node-details';
import { byTestId } from './selectors';

export type { CanvasEdge, CanvasLayout } from './canvas';
export { overlap } from './canvas';
export type { NodeCredentialField, ParameterControls } from './node-details';
export {
	type PickerEntry,
	SVC_NAME,
	SVC_PULL_TRIGGER_NAME,
	SVC_TOOL_NAME,
	SVC_TRIGGER_NAME,
} from './node-picker';
export { byTestId, canvasNode } from './selectors';

const PUBLISH_BUTTON = byTestId('workflow-open-publish-modal-button');
export const CREDENTIAL_DIALOG = byTestId('credential-edit-dialog');
/** Where the credential modal shows the result of n8n's connection test. */
export const CREDENTIAL_TEST = byTestId('node-credentials-config-container');
const RETRY_CREDENTIAL_TEST = `${CREDENTIAL_TEST} button[title="Retry credential test"]`;

export class Editor extends NodeDetails {
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
	// Publishing

	/**
	 * Publish, naming the version as n8n 2.x asks; returns once the header says Published, with what
	 * n8n's dialog said the trigger will now do.
	 */
	async publish(versionName: string): Promise<string> {
		await this.click(PUBLISH_BUTTON);
		// The dialog puts its default name in and then, once open, the focus: keys typed before that
		// land in an input n8n then selects again (one run kept "hed" of the name).
		const versionNameInput = byTestId('workflow-publish-version-name-input');
		await this.waitForFocus(versionNameInput);
		await this.replaceText(versionNameInput, versionName);
		await this.click(byTestId('workflow-publish-button'));
		// For a workflow with a trigger n8n explains that production runs are listed under Executions.
		const modal = byTestId('activation-modal');
		await this.page.waitForSelector(modal, { visible: true });
		const said = (await this.textOf(modal))?.replace(/\s+/g, ' ').trim() ?? '';
		await this.clickText(`${modal} button`, 'Got it');
		await this.waitForText(PUBLISH_BUTTON, /^\s*Published\s*$/);
		return said;
	}

	async unpublish(): Promise<void> {
		await this.click(byTestId('version-menu-button'));
		await this.click(byTestId('version-menu-item-unpublish'));
		await this.clickText(
			`${byTestId('workflow-history-version-unpublish-modal')} button`,
			'Unpublish',
		);
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
		await this.replaceText(
			`${CREDENTIAL_DIALOG} ${byTestId(`parameter-input-${field}`)} input`,
			value,
		);
		// The field hands its value on after a debounce, so a test started at once can still send
		// the previous value, and a test n8n started itself (it tests the stored credential as the
		// modal opens) can still be under way, its button a spinner: click Retry once it reads
		// "Retry" again, on the banner shown (both banners have one), until n8n has tested this value.
		for (let attempt = 1; ; attempt++) {
			const tested = this.page.waitForResponse((response) =>
				response.url().endsWith('/rest/credentials/test'),
			);
			const unclickable = await this.clickText(RETRY_CREDENTIAL_TEST, 'Retry').then(
				() => undefined,
				(error: Error) => error.message,
			);
			if (unclickable !== undefined) {
				void tested.catch(() => undefined);
				throw new Error(
					`The credential test's Retry never became clickable: n8n's own test did not end (${unclickable})`,
				);
			}
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
