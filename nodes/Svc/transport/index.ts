export {
	checkApiKey,
	checkBaseUrl,
	checkCredentials,
	CredentialFormatError,
	isLegacyApiKey,
	isLoopbackHost,
	LEGACY_KEY_HINT,
} from './apiKey';
export type { ClientOptions, RequestSpec, RetryPolicy, SvcContext, SvcResponse } from './client';
export {
	CREDENTIAL_TYPE,
	DEFAULT_RETRY,
	DEFAULT_TIMEOUT_MS,
	networkErrorCode,
	SvcClient,
} from './client';
export {
	asUserError,
	describeFailure,
	networkCause,
	NOT_THE_API_TEXT,
	REJECTED_KEY_TEXT,
	toNodeApiError,
	userError,
} from './errors';
export { RequestGate } from './gate';
export {
	canonicalJson,
	deriveIdempotencyKey,
	idempotencyKeyFromContent,
	idempotencyKeyFromText,
	isUuid,
} from './idempotency';
export { REDACTED, Redactor } from './redact';
