/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- throwaway test values, not secrets */
import type { INode } from 'n8n-workflow';

import { ENDPOINTS } from '../../nodes/Svc/contract';
import { describeFailure, networkCause, Redactor, toNodeApiError } from '../../nodes/Svc/transport';

const node: INode = {
	id: 'n1',
	name: 'Svc',
	type: 'n8n-nodes-svc.svc',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
const key = 'svc_live_Zz9Yy8Xx7Ww6Vv5Uu4Tt';
const failure = {
	endpoint: ENDPOINTS.dispatchCampaign,
	attempts: 1,
	baseUrl: 'https://api.example.com',
};

describe('Redactor', () => {
	it('removes known secrets, their URL encoding, Bearer values and anything shaped like a key or signing secret', () => {
		const redactor = new Redactor().add(key);
		const text = redactor.text(
			`auth=${key} h=Bearer ${key} q=${encodeURIComponent(key)} other=ok_test_AAAAAAAAAAAAAAAAAAAA s=whsec_QUJDREVGR0hJSktMTU5PUA==`,
		);
		expect(text).not.toContain('Zz9Yy8Xx7Ww6');
		expect(text).not.toContain('AAAAAAAAAAAA');
		expect(text).not.toContain('QUJDREVGR0hJ');
		expect(text).toContain('[redacted]');
	});

	it('redacts deeply and leaves other values alone', () => {
		const value = new Redactor()
			.add(key)
			.value({ a: [key, 1, null], b: { c: `x ${key}` }, d: true });
		expect(value).toEqual({ a: ['[redacted]', 1, null], b: { c: 'x [redacted]' }, d: true });
	});

	it('ignores secrets too short to be real', () => {
		expect(new Redactor().add('ab').text('tab')).toBe('tab');
	});
});

describe('describeFailure', () => {
	it('401 says invalid, revoked or mistyped', () => {
		expect(describeFailure({ ...failure, status: 401 }).message).toMatch(
			/invalid, revoked or mistyped/,
		);
	});

	it('403 names the scope from the contract even when the server does not', () => {
		const { message, description } = describeFailure({
			...failure,
			status: 403,
			body: { error: { code: 'missing_scope', message: 'forbidden' } },
		});
		expect(message).toContain('"campaigns:danger"');
		expect(description).toContain('POST /v1/campaigns/{campaign_id}/dispatch');
	});

	it('403 prefers the scope the server names', () => {
		expect(
			describeFailure({
				...failure,
				status: 403,
				body: { error: { code: 'missing_scope', message: 'x', required_scope: 'leads:write' } },
			}).message,
		).toContain('"leads:write"');
	});

	it('422 explains idempotency key reuse', () => {
		expect(
			describeFailure({
				...failure,
				status: 422,
				body: { error: { code: 'idempotency_key_reused', message: 'x' } },
			}).description,
		).toMatch(/24 hours/);
	});

	it('429 after retries says the rate limit was hit and what to change', () => {
		const { message, description } = describeFailure({ ...failure, status: 429, attempts: 6 });
		expect(message).toBe('Rate limit hit: the service kept answering 429 after 6 attempts');
		expect(description).toContain('Max Requests per Second');
	});

	it('network failures name the code and the base URL', () => {
		expect(describeFailure({ ...failure, networkCode: 'ECONNREFUSED', attempts: 3 }).message).toBe(
			'Could not reach the service (ECONNREFUSED) after 3 attempts',
		);
	});

	it.each([
		['ECONNREFUSED', /Nothing accepted the connection at api\.example\.com:8443: check the port/],
		[
			'ENOTFOUND',
			/The host name api\.example\.com does not resolve: check the credential's Base URL for a typo/,
		],
		[
			'EPROTO',
			/did not answer in TLS: the credential's Base URL most likely says https:\/\/ for a server that speaks http/,
		],
		['ERR_SSL_WRONG_VERSION_NUMBER', /did not answer in TLS/],
		[
			'DEPTH_ZERO_SELF_SIGNED_CERT',
			/TLS certificate of api\.example\.com:8443 is not trusted.*NODE_EXTRA_CA_CERTS/,
		],
		['ETIMEDOUT', /No answer from api\.example\.com:8443 in time/],
		['ECONNRESET', /connection to api\.example\.com:8443 was cut/],
	])('%s: the description names the likely cause and where to fix it', (networkCode, cause) => {
		const { description } = describeFailure({
			...failure,
			baseUrl: 'https://api.example.com:8443',
			networkCode,
			attempts: 1,
		});
		expect(description).toMatch(cause);
		expect(description).toMatch(/writes are safe to repeat/);
	});

	it('a TLS failure on loopback suggests http://, elsewhere the port and the https address (http is refused there)', () => {
		expect(networkCause('EPROTO', 'https://127.0.0.1:8080')).toMatch(
			/If the service there is served over plain http, change the Base URL to start with http:\/\/; otherwise check its port\.$/,
		);
		expect(networkCause('EPROTO', 'https://localhost:8080')).toMatch(/start with http:\/\//);
		const remote = networkCause('ERR_SSL_WRONG_VERSION_NUMBER', 'https://api.example.com:8080');
		expect(remote).toMatch(/Check the port, and that the Base URL is the service's https address/);
		expect(remote).not.toMatch(/start with http:\/\//);
	});

	it('404 on a path without an ID means the Base URL, not an ID', () => {
		const list = describeFailure({
			...failure,
			endpoint: ENDPOINTS.getMe,
			status: 404,
			baseUrl: 'https://api.example.com/api',
		});
		expect(list).toEqual({
			message: 'The Base URL does not lead to the service API (404)',
			description:
				"GET /v1/me at https://api.example.com/api was not found. Put the service's API address in the Base URL of the Svc API credential, without /v1.",
		});
		expect(
			describeFailure({ ...failure, endpoint: ENDPOINTS.getLead, status: 404 }).description,
		).toMatch(/check the ID/);
	});
});

describe('toNodeApiError', () => {
	it('never carries the key, whatever the server echoed', () => {
		const redactor = new Redactor().add(key);
		const error = toNodeApiError(
			node,
			{
				...failure,
				status: 400,
				body: { error: { code: 'invalid_request', message: `bad header Bearer ${key}` } },
			},
			redactor,
		);
		const everything = JSON.stringify({
			message: error.message,
			description: error.description,
			context: error.context,
			cause: error.cause,
			stack: error.stack,
		});
		expect(everything).not.toContain(key);
		expect(error.httpCode).toBe('400');
	});
});
