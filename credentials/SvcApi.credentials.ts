import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { API_VERSION_PREFIX, KEY_PREFIXES } from '../nodes/Svc/contract';
import { checkCredentials, LEGACY_KEY_HINT } from '../nodes/Svc/transport/apiKey';

/**
 * The Svc node tests this credential (its `testedBy`, nodes/Svc/methods/credentialTest.ts), so a
 * failure names its cause and fix. There is no declarative `test`: n8n would run it instead.
 */
export class SvcApi implements ICredentialType {
	name = 'svcApi';

	displayName = 'Svc API';

	icon: Icon = { light: 'file:../nodes/Svc/svc.svg', dark: 'file:../nodes/Svc/svc.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-svc/n8n-nodes-svc/blob/main/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			// n8n shows only "Connection tested successfully" for a key that works, whatever it may do.
			displayName:
				"The test checks that the service accepts this key. To see the key's scopes, and whether it is a legacy ok_… key to rotate, run the Svc node's Account → Get Current Identity.",
			name: 'testNotice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			placeholder: 'svc_live_…',
			hint: "Create one in the service's dashboard under Settings > API keys, with the scopes your workflows need",
			description:
				'Created in the dashboard under Settings > API keys; the full key is shown only once. Formats: svc_live_…, svc_test_… (legacy ok_live_…, ok_test_… work until rotated). Give the key only the scopes your workflows need.',
		},
		{
			// Shown only while a key is being entered: n8n never sends a saved key back to the page,
			// and its test shows nothing but "Connection tested successfully" for a key that works.
			displayName: LEGACY_KEY_HINT,
			name: 'legacyKeyNotice',
			type: 'notice',
			default: '',
			displayOptions: {
				show: { apiKey: KEY_PREFIXES.legacy.map((prefix) => ({ _cnd: { startsWith: prefix } })) },
			},
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://api.example.com',
			hint: `The address of the Svc API you were given, without ${API_VERSION_PREFIX}, e.g. https://api.example.com (a trailing ${API_VERSION_PREFIX} is taken off)`,
			description: `Address of the service API, without ${API_VERSION_PREFIX}. Must be https; http is accepted only for a local sandbox on 127.0.0.1 or localhost.`,
		},
	];

	/** Checks the key and Base URL before anything is sent, then adds the Bearer header. */
	authenticate = (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		const checked = checkCredentials(credentials);
		if ('problem' in checked) return Promise.reject(new Error(checked.problem));
		return Promise.resolve({
			...requestOptions,
			headers: { ...requestOptions.headers, Authorization: `Bearer ${checked.apiKey}` },
		});
	};
}
