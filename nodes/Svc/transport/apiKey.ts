import {
	ACCEPTED_KEY_FORMATS_TEXT,
	API_KEY_PATTERN,
	API_VERSION_PREFIX,
	KEY_PREFIXES,
} from '../contract';

/** Raised before any request is sent; its message never contains the key. */
export class CredentialFormatError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'CredentialFormatError';
	}
}

/** Checks the key's format and returns it trimmed (pasted keys often carry a newline). */
export function checkApiKey(value: unknown): string {
	if (typeof value !== 'string' || value.trim() === '') {
		throw new CredentialFormatError(
			"The Svc API credential has no API key. Paste the key created in the service's dashboard under Settings > API keys.",
		);
	}
	const key = value.trim();
	if (/^bearer\s/i.test(key)) {
		throw new CredentialFormatError(
			'The API key field must hold only the key, without the word "Bearer".',
		);
	}
	if (!API_KEY_PATTERN.test(key)) {
		throw new CredentialFormatError(
			`The API key in the Svc API credential is not in an accepted format. Expected ${ACCEPTED_KEY_FORMATS_TEXT}. Copy the full key again from the service's dashboard (Settings > API keys).`,
		);
	}
	return key;
}

export type CheckedCredentials = { apiKey: string; baseUrl: string } | { problem: string };

/** Both checks, as a value: what the transport uses before its first request. */
export function checkCredentials(credentials: {
	apiKey?: unknown;
	baseUrl?: unknown;
}): CheckedCredentials {
	try {
		return { apiKey: checkApiKey(credentials.apiKey), baseUrl: checkBaseUrl(credentials.baseUrl) };
	} catch (error) {
		return {
			problem:
				error instanceof CredentialFormatError
					? error.message
					: 'The Svc API credential could not be read.',
		};
	}
}

/** Said wherever a legacy key shows: under a Svc node's output, and in the credential's form. */
export const LEGACY_KEY_HINT =
	"This credential uses a legacy ok_… API key. It still works, but rotate it: create a svc_… key in the service's dashboard (Settings > API keys), put it in the credential, then revoke the old one.";

export function isLegacyApiKey(key: string): boolean {
	return KEY_PREFIXES.legacy.some((prefix) => key.startsWith(prefix));
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
	return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Returns the base URL without trailing slashes or a trailing /v1 (every path in the contract
 * already starts with /v1). https is required; http only for loopback, where the sandbox runs.
 */
export function checkBaseUrl(value: unknown): string {
	if (typeof value !== 'string' || value.trim() === '') {
		throw new CredentialFormatError(
			'The Svc API credential has no Base URL. Enter the https address of the service.',
		);
	}
	if (!URL.canParse(value.trim())) {
		throw new CredentialFormatError(
			'The Base URL in the Svc API credential is not a valid URL. Enter it like https://api.example.com',
		);
	}
	const url = new URL(value.trim());
	if (url.username || url.password) {
		throw new CredentialFormatError(
			'The Base URL must not contain a user name or password; the API key is the only credential.',
		);
	}
	if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
		throw new CredentialFormatError(
			'The Base URL must start with https:// (plain http is allowed only for a local sandbox on 127.0.0.1 or localhost).',
		);
	}
	const path = url.pathname.replace(/\/+$/, '');
	const withoutVersion = path.endsWith(API_VERSION_PREFIX)
		? path.slice(0, -API_VERSION_PREFIX.length)
		: path;
	return `${url.origin}${withoutVersion}`;
}
