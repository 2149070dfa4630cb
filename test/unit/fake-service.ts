/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- throwaway test values, not secrets */
import type { IDataObject, IHttpRequestOptions, INode, Logger } from 'n8n-workflow';

import type { SvcContext } from '../../nodes/Svc/transport';

const node: INode = {
	id: 'n',
	name: 'Svc',
	type: 'n8n-nodes-svc.svc',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
const silent = {
	debug: () => undefined,
	info: () => undefined,
	warn: () => undefined,
	error: () => undefined,
} as unknown as Logger;

/** A service that pages `records` with its own page cap, recording every query it got. */
export function fakeService(
	records: IDataObject[],
	serverCap: number,
	seen: IDataObject[],
): SvcContext {
	return {
		getNode: () => node,
		getCredentials: async <T extends object>() =>
			await Promise.resolve({
				apiKey: 'svc_test_PropertyTestKey000001',
				baseUrl: 'https://api.example.com',
			} as T),
		logger: silent,
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
				const qs = options.qs ?? {};
				seen.push(qs);
				const start = typeof qs.cursor === 'string' ? Number(qs.cursor.slice(2)) : 0;
				const size = Math.min(Number(qs.limit), serverCap);
				const data = records.slice(start, start + size);
				const next = start + size < records.length ? `c_${start + size}` : null;
				return await Promise.resolve({
					statusCode: 200,
					headers: {},
					body: { data, next_cursor: next },
				});
			},
		},
	};
}
