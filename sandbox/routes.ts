import type { EndpointContract, EndpointName } from '../nodes/Svc/contract';
import { ENDPOINTS } from '../nodes/Svc/contract';
import { badRequest } from './http';

export interface Route {
	name: EndpointName;
	endpoint: EndpointContract;
	/** "POST /v1/leads/{lead_id}/assistant-takeover": how fault rules and stats name a route. */
	key: string;
	pattern: RegExp;
	params: string[];
}

type RouteMatch = { route: Route; params: Record<string, string> } | { allowed: string[] } | undefined;

function compile(name: EndpointName): Route {
	const endpoint: EndpointContract = ENDPOINTS[name];
	const params: string[] = [];
	const source = endpoint.path.replace(/\{(\w+)\}/g, (_match, param: string) => {
		params.push(param);
		return '([^/]+)';
	});
	return { name, endpoint, key: `${endpoint.method} ${endpoint.path}`, pattern: new RegExp(`^${source}$`), params };
}

/** Built from the contract, so a path changed there is served here without another edit. */
const ROUTES: readonly Route[] = (Object.keys(ENDPOINTS) as EndpointName[]).map(compile);
export const ROUTE_KEYS: readonly string[] = ROUTES.map((route) => route.key);

/** The route for a request; `allowed` when the path exists but not with this method. */
export function matchRoute(method: string, path: string): RouteMatch {
	const allowed: string[] = [];
	for (const route of ROUTES) {
		const found = route.pattern.exec(path);
		if (!found) continue;
		if (route.endpoint.method !== method) {
			allowed.push(route.endpoint.method);
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
