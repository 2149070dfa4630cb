import { LIST_LIMIT_MAX, LIST_LIMIT_MIN } from '../nodes/Svc/contract';
import { badRequest } from './errors';

/** A page size from the query parameter `name` (1..100), or `fallback` without one; else a 400 naming it. */
export function limitParam(query: URLSearchParams, name: string, fallback: number): number {
	const raw = query.get(name);
	if (raw === null) return fallback;
	const limit = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
	if (!(limit >= LIST_LIMIT_MIN && limit <= LIST_LIMIT_MAX))
		throw badRequest(`${name} must be a whole number from ${LIST_LIMIT_MIN} to ${LIST_LIMIT_MAX}`);
	return limit;
}
