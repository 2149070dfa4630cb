import fc from 'fast-check';
import type { IDataObject, IHttpRequestOptions, INode, Logger } from 'n8n-workflow';

import type { SvcContext } from '../../nodes/Svc/transport';
import { SvcClient } from '../../nodes/Svc/transport';

const node: INode = { id: 'n', name: 'Svc', type: 'n8n-nodes-svc.svc', typeVersion: 1, position: [0, 0], parameters: {} };
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;

/** A service that pages `records` with its own page cap, recording every query it got. */
function fakeService(records: IDataObject[], serverCap: number, seen: IDataObject[]): SvcContext {
	return {
		getNode: () => node,
		getCredentials: async <T extends object>() => await Promise.resolve({ apiKey: 'svc_test_PropertyTestKey000001', baseUrl: 'https://api.example.com' } as T),
		logger: silent,
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
				const qs = options.qs ?? {};
				seen.push(qs);
				const start = typeof qs.cursor === 'string' ? Number(qs.cursor.slice(2)) : 0;
				const size = Math.min(Number(qs.limit), serverCap);
				const data = records.slice(start, start + size);
				const next = start + size < records.length ? `c_${start + size}` : null;
				return await Promise.resolve({ statusCode: 200, headers: {}, body: { data, next_cursor: next } });
			},
		},
	};
}

describe('cursor pagination properties', () => {
	it('returns exactly the first `max` records in order (or all), keeping every filter on every page', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.integer({ min: 0, max: 350 }),
				fc.integer({ min: 1, max: 120 }),
				fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
				fc.dictionary(fc.constantFrom('email', 'source', 'lead_id'), fc.string({ minLength: 1, maxLength: 8 })),
				async (count, serverCap, max, filters) => {
					const records = Array.from({ length: count }, (_, index) => ({ id: `r${index}` }));
					const seen: IDataObject[] = [];
					const client = await SvcClient.connect(fakeService(records, serverCap, seen));
					const result = await client.paginate<IDataObject>('listLeads', { qs: filters, max });
					const expected = max === undefined ? records : records.slice(0, max);
					const limitsOk = seen.every((qs) => Number(qs.limit) >= 1 && Number(qs.limit) <= 100);
					const filtersKept = seen.every((qs) => Object.entries(filters).every(([key, value]) => qs[key] === value));
					return JSON.stringify(result) === JSON.stringify(expected) && limitsOk && filtersKept;
				},
			),
			{ numRuns: 150 },
		);
	});

	it('stops with a clear error when the service repeats a cursor, instead of looping', async () => {
		const looping = fakeService([{ id: 'a' }], 1, []);
		looping.helpers.httpRequestWithAuthentication = (async () => await Promise.resolve({ statusCode: 200, headers: {}, body: { data: [{ id: 'a' }], next_cursor: 'same' } })) as never;
		const client = await SvcClient.connect(looping);
		await expect(client.paginate('listLeads')).rejects.toThrow('The service returned the same page cursor twice');
	});
});
