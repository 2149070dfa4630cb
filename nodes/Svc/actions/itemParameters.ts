import type { IExecuteFunctions, IGetNodeParameterOptions } from 'n8n-workflow';

/** Whether a stored parameter value is, or holds, an n8n expression (a string starting with "="). */
function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	if (value !== null && typeof value === 'object')
		return Object.values(value).some(holdsExpression);
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

/** How a setting is stored in the workflow: unset, an expression, or a literal value a person chose. */
export type StoredSetting =
	{ kind: 'unset' } | { kind: 'expression' } | { kind: 'literal'; value: unknown };

/**
 * A setting only the person building the workflow may make, read as stored: an expression is
 * reported as such, never resolved, since a model ($fromAI) or input data could fill it.
 */
export function storedSetting(parameters: unknown, path: string): StoredSetting {
	const value = storedValue(parameters, path);
	if (value === undefined || value === null) return { kind: 'unset' };
	return holdsExpression(value) ? { kind: 'expression' } : { kind: 'literal', value };
}

/** What `ItemParameters` keeps for a parameter that holds an expression: nothing, it is resolved per item. */
const PER_ITEM = Symbol('per item');

/**
 * The node's parameters for each item. n8n resolves a parameter again for every item it is read
 * for; one whose stored value holds no expression is the same for every item, so it is resolved
 * once per execution (a bulk upsert reads three parameters per item). Whether a parameter holds
 * an expression is decided once too. What it returns is shared between items: callers copy
 * before they change it.
 */
export class ItemParameters {
	private readonly resolved = new Map<string, { value: unknown } | typeof PER_ITEM>();

	constructor(private readonly ctx: IExecuteFunctions) {}

	read<T>(name: string, itemIndex: number, fallback: T, options?: IGetNodeParameterOptions): T {
		const key = options?.extractValue ? `${name} (extracted)` : name;
		let entry = this.resolved.get(key);
		if (entry === undefined) {
			entry = holdsExpression(storedValue(this.ctx.getNode().parameters, name))
				? PER_ITEM
				: { value: this.ctx.getNodeParameter(name, itemIndex, fallback, options) };
			this.resolved.set(key, entry);
		}
		return (
			entry === PER_ITEM
				? this.ctx.getNodeParameter(name, itemIndex, fallback, options)
				: entry.value
		) as T;
	}
}
