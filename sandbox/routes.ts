import type { EndpointContract, EndpointName, HttpMethod } from '../nodes/Svc/contract';
import { ENDPOINTS } from '../nodes/Svc/contract';
import { badRequest } from './errors';

/** What the path router needs of a route; the API's and the admin API's routes both are one. */
export interface PathRoute {
	method: string;
	pattern: RegExp;
	/** The `{name}` segments of the path, in order. */
	params: string[];
}

export interface Route extends PathRoute {
	name: EndpointName;
	endpoint: EndpointContract;
	method: HttpMethod;
	/** "POST /v1/leads/{lead_id}/assistant-takeover": how fault rules and stats name a route. */
	key: string;
}

/** The route for a request; `allowed` when the path exists but not with this method. */
export type RouteMatch<R> =
	{ route: R; params: Record<string, string> } | { allowed: string[] } | undefined;

/** Compiles a path template: each `{name}` matches one segment, the rest matches literally. */
export function compilePath(template: string): Pick<PathRoute, 'pattern' | 'params'> {
	const params: string[] = [];
	// split() with a capture group alternates literal text and parameter names.
	const source = template
		.split(/\{(\w+)\}/)
		.map((part, index) => {
			if (index % 2 === 0) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
			params.push(part);
			return '([^/]+)';
		})
		.join('');
	return { pattern: new RegExp(`^${source}$`), params };
}

/** Matches a request against `routes`, decoding the path parameters (bad percent-encoding is a 400). */
export function matchPath<R extends PathRoute>(
	routes: readonly R[],
	method: string,
	path: string,
): RouteMatch<R> {
	const allowed: string[] = [];
	for (const route of routes) {
		const found = route.pattern.exec(path);
		if (!found) continue;
		if (route.method !== method) {
			if (!allowed.includes(route.method)) allowed.push(route.method);
			continue;
		}
		const params: Record<string, string> = {};
		route.params.forEach((param, index) => {
			try {
				params[param] = decodeURIComponent(found[index + 1]);
			} catch {
				throw badRequest(`The path parameter ${param} is not valid percent-encoding`);
			}
		});
		return { route, params };
	}
	return allowed.length > 0 ? { allowed } : undefined;
}

function compile(name: EndpointName): Route {
	const endpoint: EndpointContract = ENDPOINTS[name];
	return {
		name,
		endpoint,
		method: endpoint.method,
		key: `${endpoint.method} ${endpoint.path}`,
		...compilePath(endpoint.path),
	};
}

/** Built from the contract, so a path changed there is served here without another edit. */
const ROUTES: readonly Route[] = (Object.keys(ENDPOINTS) as EndpointName[]).map(compile);
export const ROUTE_KEYS: readonly string[] = ROUTES.map((route) => route.key);

export function matchRoute(method: string, path: string): RouteMatch<Route> {
	return matchPath(ROUTES, method, path);
}
