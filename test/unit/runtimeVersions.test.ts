import { runtimeVersions } from '../../harness/runtime-versions';

describe('runtimeVersions', () => {
	it('runs both majors unless told otherwise', () => {
		expect(runtimeVersions('SVC_E2E_N8N', {})).toEqual(['v1', 'v2']);
		expect(runtimeVersions('SVC_E2E_N8N', { SVC_E2E_N8N: ' ALL ' })).toEqual(['v1', 'v2']);
	});

	it('reads one major or a comma list, once each, from the variable it is given', () => {
		expect(runtimeVersions('SVC_QUEUE_N8N', { SVC_QUEUE_N8N: 'v2', SVC_E2E_N8N: 'v1' })).toEqual([
			'v2',
		]);
		expect(runtimeVersions('SVC_E2E_N8N', { SVC_E2E_N8N: 'v2, v1,v2' })).toEqual(['v2', 'v1']);
	});

	it('names the variable that holds a wrong value', () => {
		expect(() => runtimeVersions('SVC_QUEUE_N8N', { SVC_QUEUE_N8N: 'v3' })).toThrow(
			'SVC_QUEUE_N8N=v3: unknown n8n runtime v3 (use v1, v2, all or a comma list)',
		);
	});
});
