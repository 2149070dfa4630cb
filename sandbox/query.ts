import { LIST_LIMIT_MAX, LIST_LIMIT_MIN } from '../nodes/Svc/contract';
import { badRequest } from './errors';

/** Whether `value` is a page size the contract allows: a whole number from 1 to 100. */
export function isPageSize(value: unknown): value is number {
	return (
		Number.isInteger(value) &&
		(value as number) >= LIST_LIMIT_MIN &&
		(value as number) <= LIST_LIMIT_MAX
	);
}

/** What to say about a setting or parameter `name` that is not a page size. */
export function pageSizeProblem(name: string): string {
	return `${name} must be a whole number from ${LIST_LIMIT_MIN} to ${LIST_LIMIT_MAX}`;
}

/** A page size from the query parameter `name` (1..100), or `fallback` without one; else a 400 naming it. */
export function limitParam(query: URLSearchParams, name: string, fallback: number): number {
	const raw = query.get(name);
	if (raw === null) return fallback;
	const limit = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
	if (!isPageSize(limit)) throw badRequest(pageSizeProblem(name));
	return limit;
}
