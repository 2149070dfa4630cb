/** Where n8n's editor puts things, as CSS: what more than one part of the Editor looks for. */

/** CSS for the element n8n marks with `data-test-id="<id>"`. */
export function byTestId(id: string): string {
	return `[data-test-id="${id}"]`;
}

/** CSS for a node on the canvas, by its name. */
export function canvasNode(name: string): string {
	return `${byTestId('canvas-node')}[data-node-name="${name}"]`;
}

export const NDV = byTestId('ndv');
