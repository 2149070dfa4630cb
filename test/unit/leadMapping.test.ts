import { leadFromItem } from '../../nodes/Svc/actions/leadMapping';

describe('Map Automatically (leadFromItem)', () => {
	it('maps known fields by name in any casing, and the rest into custom fields', () => {
		const { body, consent } = leadFromItem(
			{
				Email: ' ann@example.com ',
				firstName: 'Ann',
				'Last Name': 'Lee',
				external_id: 'crm-1',
				plan: 'pro',
				score: 7,
			},
			new Set(),
		);
		expect(body).toEqual({
			email: 'ann@example.com',
			first_name: 'Ann',
			last_name: 'Lee',
			external_id: 'crm-1',
			custom_fields: { plan: 'pro', score: 7 },
		});
		expect(consent).toEqual({});
	});

	it('reads consent from flat columns or an object', () => {
		expect(
			leadFromItem(
				{
					email: 'a@b.co',
					consent_status: 'granted',
					consent_channel: 'email',
					consentSource: 'form',
				},
				new Set(),
			).consent,
		).toEqual({
			status: 'granted',
			channel: 'email',
			source: 'form',
		});
		expect(
			leadFromItem({ email: 'a@b.co', consent: { status: 'denied' } }, new Set()).consent,
		).toEqual({ status: 'denied' });
	});

	it('merges a custom_fields object, skips blanks, read-only fields and ignored fields', () => {
		const { body } = leadFromItem(
			{
				id: 'x',
				created_at: 'y',
				email: 'a@b.co',
				phone: '',
				notes: null,
				custom_fields: { tier: 'gold' },
				row_number: 2,
				city: 'Oslo',
			},
			new Set(['rownumber']),
		);
		expect(body).toEqual({ email: 'a@b.co', custom_fields: { tier: 'gold', city: 'Oslo' } });
	});
});
