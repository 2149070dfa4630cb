/// <reference lib="dom" />
// The functions handed to page.evaluate and page.waitForFunction run in the browser: they need the DOM's types.

/** The Editor's pages and canvas: signing in, opening a workflow, and reading what the canvas draws. */
import { BrowserPage } from './page';
import { byTestId, canvasNode } from './selectors';

/** An edge into a canvas node: where it comes from and its connection type (main, ai_tool, …). */
export interface CanvasEdge {
	source: string;
	type: string;
}

export class CanvasPage extends BrowserPage {
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
	// The canvas

	/** "Execute workflow" under the canvas: with a trigger that listens, n8n waits for its event, then runs every node. */
	async executeWorkflow(): Promise<void> {
		await this.click(byTestId('execute-workflow-button'));
	}

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
		return await this.page.$$eval(
			`${byTestId('edge')}[data-target-node-name="${target}"]`,
			(edges) =>
				edges.map((edge) => ({
					source: edge.getAttribute('data-source-node-name') ?? '',
					// The edge's group is keyed "[<source id>/outputs/<type>/<index>][<target id>/inputs/<type>/<index>]".
					type:
						/\/outputs\/([^/]+)\//.exec(
							edge.closest('.vue-flow__edge')?.getAttribute('data-id') ?? '',
						)?.[1] ?? '',
				})),
		);
	}

	/**
	 * Where each node of the open workflow sits on screen, with the texts it shows (a note's, a
	 * node's label below it), and where the floating "Execute workflow" button sits, once the canvas
	 * shows `count` nodes. A note has no `canvas-node` test id: every node is read from its Vue Flow
	 * wrapper.
	 */
	async canvasLayout(count: number): Promise<CanvasLayout> {
		await this.page.waitForFunction(
			(expected: number) => document.querySelectorAll('.vue-flow__node').length === expected,
			{},
			count,
		);
		return await this.page.evaluate(() => {
			const toBox = (rect: DOMRect): Box => ({
				left: rect.left,
				top: rect.top,
				right: rect.right,
				bottom: rect.bottom,
			});
			// Shown, up to the node's wrapper: n8n keeps a node's hover toolbar in place, transparent.
			const shown = (part: Element, wrapper: Element): boolean => {
				for (
					let at: Element | null = part;
					at && at !== wrapper.parentElement;
					at = at.parentElement
				) {
					const style = getComputedStyle(at);
					if (style.visibility === 'hidden' || style.opacity === '0') return false;
				}
				return true;
			};
			// The node's own box and every text it shows (its label and subtitle hang below it).
			const hasText = (part: Element): boolean =>
				Array.from(part.childNodes).some(
					(child) => child.nodeType === Node.TEXT_NODE && (child.textContent ?? '').trim() !== '',
				);
			const union = (element: Element): Box =>
				[element, ...Array.from(element.querySelectorAll('*')).filter(hasText)]
					.filter((part) => shown(part, element))
					.map((part) => part.getBoundingClientRect())
					.filter((rect) => rect.width > 0 && rect.height > 0)
					.map(toBox)
					.reduce((all, box) => ({
						left: Math.min(all.left, box.left),
						top: Math.min(all.top, box.top),
						right: Math.max(all.right, box.right),
						bottom: Math.max(all.bottom, box.bottom),
					}));
			const button = document.querySelector('[data-test-id="execute-workflow-button"]');
			return {
				nodes: Array.from(document.querySelectorAll('.vue-flow__node')).map((wrapper) => {
					const node = wrapper.querySelector('[data-test-id="canvas-node"]');
					const note = wrapper.querySelector('[data-test-id="sticky"]');
					// A note's text, from its first line to its last, against the note's own box.
					const text =
						note &&
						Array.from(note.querySelectorAll('*'))
							.filter(hasText)
							.map((part) => part.getBoundingClientRect())
							.filter((rect) => rect.width > 0 && rect.height > 0)
							.map(toBox);
					return {
						name: node?.getAttribute('data-node-name') ?? (note ? 'note' : ''),
						isNote: note !== null,
						box: union(wrapper),
						...(note && text && text.length > 0
							? {
									note: {
										box: toBox(note.getBoundingClientRect()),
										textTop: Math.min(...text.map((box) => box.top)),
										textBottom: Math.max(...text.map((box) => box.bottom)),
									},
								}
							: {}),
					};
				}),
				executeButton: button ? toBox(button.getBoundingClientRect()) : undefined,
			};
		});
	}

	/** Waits until the canvas shows `count` nodes; returns the names of those with an issue marker. */
	async nodesWithIssues(count: number): Promise<string[]> {
		await this.page.waitForFunction(
			(expected: number) =>
				document.querySelectorAll('[data-test-id="canvas-node"]').length === expected,
			{},
			count,
		);
		return await this.page.$$eval(byTestId('canvas-node'), (nodes) =>
			nodes
				.filter((node) => node.querySelector('[data-test-id="node-issues"]') !== null)
				.map((node) => node.getAttribute('data-node-name') ?? ''),
		);
	}
}

export interface Box {
	left: number;
	top: number;
	right: number;
	bottom: number;
}

export interface CanvasLayout {
	nodes: Array<{
		name: string;
		isNote: boolean;
		box: Box;
		/** A note's own box and where its text starts and ends, in the page's pixels. */
		note?: { box: Box; textTop: number; textBottom: number };
	}>;
	executeButton: Box | undefined;
}

/** Whether two boxes share any area (touching edges do not count). */
export const overlap = (a: Box, b: Box): boolean =>
	a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
