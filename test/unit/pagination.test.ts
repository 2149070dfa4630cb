import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { SvcClient } from '../../nodes/Svc/transport';
import { fakeService } from './fake-service';

describe('cursor pagination properties', () => {
	it('returns exactly the first `max` records in order (or all), keeping every filter on every page', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.integer({ min: 0, max: 350 }),
				fc.integer({ min: 1, max: 120 }),
				fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
				fc.dictionary(
					fc.constantFrom('email', 'source', 'lead_id'),
					fc.string({ minLength: 1, maxLength: 8 }),
				),
				async (count, serverCap, max, filters) => {
					const records = Array.from({ length: count }, (_, index) => ({ id: `r${index}` }));
					const seen: IDataObject[] = [];
					const client = await SvcClient.connect(fakeService(records, serverCap, seen));
					const result = await client.paginate<IDataObject>('listLeads', { qs: filters, max });
					const expected = max === undefined ? records : records.slice(0, max);
					const limitsOk = seen.every((qs) => Number(qs.limit) >= 1 && Number(qs.limit) <= 100);
					const filtersKept = seen.every((qs) =>
						Object.entries(filters).every(([key, value]) => qs[key] === value),
					);
					return JSON.stringify(result) === JSON.stringify(expected) && limitsOk && filtersKept;
				},
			),
			{ numRuns: 150 },
		);
	});

	it('stops with a clear error when the service repeats a cursor, instead of looping', async () => {
		const looping = fakeService([{ id: 'a' }], 1, []);
		looping.helpers.httpRequestWithAuthentication = (async () =>
			await Promise.resolve({
				statusCode: 200,
				headers: {},
				body: { data: [{ id: 'a' }], next_cursor: 'same' },
			})) as never;
		const client = await SvcClient.connect(looping);
		await expect(client.paginate('listLeads')).rejects.toThrow(
			'The service returned the same page cursor twice',
		);
	});
});
