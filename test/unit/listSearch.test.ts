import type { IDataObject, ILoadOptionsFunctions } from 'n8n-workflow';

import { searchCampaigns, searchLeads } from '../../nodes/Svc/methods/listSearch';
import { fakeService } from './fake-service';

const leads = Array.from({ length: 130 }, (_, index) => ({ id: `lead_${index}`, first_name: index === 101 ? 'Ada' : `P${index}`, last_name: 'X', email: `p${index}@example.com` }));

describe('list search for the resource pickers', () => {
	it('pages through the API with the service cursor as pagination token, and filters by name', async () => {
		const seen: IDataObject[] = [];
		const ctx = fakeService(leads, 100, seen) as unknown as ILoadOptionsFunctions;
		const first = await searchLeads.call(ctx);
		expect(first.results).toHaveLength(100);
		expect(first.results[0]).toEqual({ name: 'P0 X (p0@example.com)', value: 'lead_0' });
		expect(first.paginationToken).toBe('c_100');
		const second = await searchLeads.call(ctx, 'ada', first.paginationToken as string);
		expect(second.results).toEqual([{ name: 'Ada X (p101@example.com)', value: 'lead_101' }]);
		expect(second.paginationToken).toBeUndefined();
		expect(seen.map((qs) => qs.cursor)).toEqual([undefined, 'c_100']);
	});

	it('names campaigns with their status', async () => {
		const ctx = fakeService([{ id: 'cmp_1', name: 'Spring', status: 'approved' }], 100, []) as unknown as ILoadOptionsFunctions;
		expect((await searchCampaigns.call(ctx)).results).toEqual([{ name: 'Spring (approved)', value: 'cmp_1' }]);
	});
});
