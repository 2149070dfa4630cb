/* eslint-disable @n8n/community-nodes/icon-validation, @n8n/community-nodes/cred-class-field-icon-missing -- a fixture loaded only by tests or benchmarks, never published */
import type { ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

/** Generic Bearer auth, the declarative way most community credentials do it. */
export class FixtureApi implements ICredentialType {
	name = 'fixtureApi';

	displayName = 'Fixture API';

	properties: INodeProperties[] = [
		{
			displayName: 'Token',
			name: 'token',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		},
		{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: '' },
	];

	authenticate = {
		type: 'generic' as const,
		properties: { headers: { Authorization: '=Bearer {{$credentials.token}}' } },
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.baseUrl.replace(/\\/+$/, "") }}',
			url: '/me',
			method: 'GET',
		},
	};
}
