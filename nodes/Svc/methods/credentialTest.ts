import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { ENDPOINTS } from '../contract';
import {
	checkCredentials,
	DEFAULT_TIMEOUT_MS,
	describeFailure,
	networkCause,
	networkErrorCode,
	NOT_THE_API_TEXT,
	REJECTED_KEY_TEXT,
	Redactor,
} from '../transport';

/** What n8n's legacy request helper answers with `resolveWithFullResponse` and `simple: false`. */
interface FullResponse {
	statusCode: number;
	body: unknown;
}

function failed(message: string): INodeCredentialTestResult {
	return { status: 'Error', message };
}

/**
 * The credential's "Test" (the Svc node's `testedBy`): the same checks and GET /v1/me as every
 * operation, and, where n8n's own test would show a bare code (EPROTO, ECONNREFUSED), the
 * transport's cause and fix. The key never reaches the message.
 */
export async function svcApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const redactor = new Redactor().add(data.apiKey);
	// A malformed key or Base URL is refused before anything is sent.
	const checked = checkCredentials(data);
	if ('problem' in checked) return failed(redactor.text(checked.problem));
	const { apiKey, baseUrl } = checked;
	redactor.add(apiKey);

	const endpoint = ENDPOINTS.getMe;
	const route = `${endpoint.method} ${endpoint.path}`;
	// A credential test's context has only the legacy `request` helper, on n8n 1.x and 2.x alike;
	// the community lint flags `this.helpers.request` for an httpRequest this context lacks
	// (n8n-io/n8n#25190).
	const { helpers } = this;
	let response: FullResponse;
	try {
		response = (await helpers.request({
			method: endpoint.method,
			uri: `${baseUrl}${endpoint.path}`,
			headers: { Accept: 'application/json', Authorization: `Bearer ${apiKey}` },
			json: true,
			// Every status comes back as an answer, and a redirect is not followed: it would take the key along.
			simple: false,
			resolveWithFullResponse: true,
			followRedirect: false,
			followAllRedirects: false,
			timeout: DEFAULT_TIMEOUT_MS,
		})) as FullResponse;
	} catch (error) {
		// Only the code is read: the error's own text may carry the request, Authorization header included.
		const code = networkErrorCode(error);
		return failed(
			redactor.text(
				`Could not connect to ${baseUrl}${code === undefined ? '' : ` (${code})`}. ${networkCause(code, baseUrl)}`,
			),
		);
	}

	const { statusCode: status, body } = response;
	if (status === 401)
		return failed(`${REJECTED_KEY_TEXT.message}. ${REJECTED_KEY_TEXT.description}`);
	if (status < 200 || status >= 300) {
		const { message, description } = describeFailure({
			endpoint,
			status,
			body,
			attempts: 1,
			baseUrl,
		});
		return failed(redactor.text(`${message}. ${description}`));
	}
	if (body === null || typeof body !== 'object') {
		return failed(
			redactor.text(
				`${baseUrl} answered ${route} with something other than the service's JSON. ${NOT_THE_API_TEXT}`,
			),
		);
	}
	return { status: 'OK', message: 'Connection successful!' };
}
