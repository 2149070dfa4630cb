import type { IExecuteFunctions, INode, INodeParameters } from 'n8n-workflow';

import { ItemParameters } from '../../nodes/Svc/actions/itemParameters';

/** A context whose getNodeParameter answers "<name>@<item>" and counts its calls per name. */
function contextWith(parameters: INodeParameters): {
	ctx: IExecuteFunctions;
	calls: Map<string, number>;
} {
	const calls = new Map<string, number>();
	const ctx = {
		getNode: () => ({ parameters }) as INode,
		getNodeParameter: (name: string, itemIndex: number) => {
			calls.set(name, (calls.get(name) ?? 0) + 1);
			return `${name}@${itemIndex}`;
		},
	} as unknown as IExecuteFunctions;
	return { ctx, calls };
}

describe('ItemParameters', () => {
	it('resolves a parameter without an expression once, and one with an expression for every item', () => {
		const { ctx, calls } = contextWith({
			inputMode: 'mapAutomatically',
			email: '={{ $json.email }}',
			additionalFields: { source: 'web', first_name: '={{ $json.name }}' },
			customFields: { field: [{ name: 'plan', value: 'pro' }] },
			options: { idempotencyKey: '={{ $json.order }}' },
		});
		const parameters = new ItemParameters(ctx);
		const names = [
			'inputMode',
			'email',
			'additionalFields',
			'customFields.field',
			'options.idempotencyKey',
			'options.ignoreFields',
		];
		const read = [0, 1, 2].map((item) => names.map((name) => parameters.read(name, item, '')));
		expect(read[2]).toEqual([
			'inputMode@0',
			'email@2',
			'additionalFields@2',
			'customFields.field@0',
			'options.idempotencyKey@2',
			'options.ignoreFields@0',
		]);
		expect(Object.fromEntries(calls)).toEqual({
			inputMode: 1,
			email: 3,
			additionalFields: 3,
			'customFields.field': 1,
			'options.idempotencyKey': 3,
			'options.ignoreFields': 1,
		});
	});

	it("keeps a resource locator's extracted value apart from the whole value", () => {
		const { ctx, calls } = contextWith({
			leadId: { __rl: true, mode: 'url', value: 'https://app.example.com/leads/lead_1' },
		});
		const parameters = new ItemParameters(ctx);
		parameters.read('leadId', 0, '', { extractValue: true });
		parameters.read('leadId', 1, '', { extractValue: true });
		parameters.read('leadId', 1, '');
		expect(calls.get('leadId')).toBe(2);
	});
});
