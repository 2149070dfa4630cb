/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- throwaway test values, not secrets */
import { checkApiKey, checkBaseUrl, isLegacyApiKey } from '../../nodes/Svc/transport/apiKey';

const secret = 'Ab3dEf6hIj9kLm2n';

describe('checkApiKey', () => {
	it.each([`svc_live_${secret}`, `svc_test_${secret}`, `ok_live_${secret}`, `ok_test_${secret}`])(
		'accepts %s',
		(key) => {
			expect(checkApiKey(key)).toBe(key);
		},
	);

	it('trims a pasted newline', () => {
		expect(checkApiKey(`  svc_test_${secret}\n`)).toBe(`svc_test_${secret}`);
	});

	it.each([
		['an unknown prefix', `sk_live_${secret}`],
		['a short secret', 'svc_live_abc123'],
		['punctuation in the secret', `svc_live_${secret}-x`],
		['an unknown environment', `svc_prod_${secret}`],
		['a key inside other text', `key=svc_live_${secret}`],
	])('rejects %s without echoing the key', (_case, key) => {
		let message = '';
		try {
			checkApiKey(key);
		} catch (error) {
			message = (error as Error).message;
		}
		expect(message).toContain('not in an accepted format');
		expect(message).toContain('svc_live_ or svc_test_ followed by 16 or more letters and digits');
		expect(message).not.toContain(secret);
	});

	it('explains a pasted "Bearer " prefix and an empty key', () => {
		expect(() => checkApiKey(`Bearer svc_live_${secret}`)).toThrow('without the word "Bearer"');
		expect(() => checkApiKey('')).toThrow('has no API key');
		expect(() => checkApiKey(undefined)).toThrow('has no API key');
	});

	it('tells legacy keys apart', () => {
		expect(isLegacyApiKey(`ok_live_${secret}`)).toBe(true);
		expect(isLegacyApiKey(`svc_live_${secret}`)).toBe(false);
	});
});

describe('checkBaseUrl', () => {
	it('normalises trailing slashes and a trailing /v1', () => {
		expect(checkBaseUrl('https://api.example.com/')).toBe('https://api.example.com');
		expect(checkBaseUrl('https://api.example.com/v1/')).toBe('https://api.example.com');
		expect(checkBaseUrl('https://example.com/svc/v1')).toBe('https://example.com/svc');
	});

	it('allows http only on loopback', () => {
		expect(checkBaseUrl('http://127.0.0.1:4010')).toBe('http://127.0.0.1:4010');
		expect(checkBaseUrl('http://localhost:4010')).toBe('http://localhost:4010');
		expect(() => checkBaseUrl('http://api.example.com')).toThrow('must start with https://');
		expect(() => checkBaseUrl('http://10.0.0.5')).toThrow('must start with https://');
	});

	it('rejects non-URLs and URLs with user info', () => {
		expect(() => checkBaseUrl('api.example.com')).toThrow('not a valid URL');
		expect(() => checkBaseUrl('https://user:pw@api.example.com')).toThrow(
			'must not contain a user name',
		);
		expect(() => checkBaseUrl('')).toThrow('has no Base URL');
	});
});
