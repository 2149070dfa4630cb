import type { IExecuteFunctions, IGetNodeParameterOptions } from 'n8n-workflow';

/** Whether a stored parameter value is, or holds, an n8n expression (a string starting with "="). */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (value !== null && typeof value === 'object') return Object.values(value).some(holdsExpression);
	return false;
}

/** The value stored in the workflow at a dotted parameter path, as the user set it (undefined when unset). */
function storedValue(parameters: unknown, path: string): unknown {
	let value = parameters;
	for (const key of path.split('.')) {
		if (value === null || typeof value !== 'object') return undefined;
		value = (value as Record<string, unknown>)[key];
	}
	return value;
}

/**
 * The node's parameters for each item. n8n resolves a parameter again for every item it is read
 * for; one whose stored value holds no expression is the same for every item, so it is resolved
 * once per execution (a bulk upsert reads three parameters per item). What it returns is shared
 * between items: callers copy before they change it.
 */
export class ItemParameters {
	private readonly sameForEveryItem = new Map<string, unknown>();

	constructor(private readonly ctx: IExecuteFunctions) {}

	read<T>(name: string, itemIndex: number, fallback: T, options?: IGetNodeParameterOptions): T {
		const key = options?.extractValue ? `${name} (extracted)` : name;
		if (this.sameForEveryItem.has(key)) return this.sameForEveryItem.get(key) as T;
		const value = this.ctx.getNodeParameter(name, itemIndex, fallback, options) as T;
		if (!holdsExpression(storedValue(this.ctx.getNode().parameters, name))) this.sameForEveryItem.set(key, value);
		return value;
	}
}
