/**
 * The errors a request can end in: ApiError carries the status, the contract's error code and any
 * headers the answer needs; the functions below build the common ones.
 */
import type { Scope } from '../nodes/Svc/contract';
import { ERROR_CODES, RETRY_AFTER_HEADER } from '../nodes/Svc/contract';

export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

const CODE_BY_STATUS: Readonly<Record<number, ErrorCode>> = {
	400: ERROR_CODES.invalidRequest,
	401: ERROR_CODES.invalidApiKey,
	403: ERROR_CODES.missingScope,
	404: ERROR_CODES.notFound,
	409: ERROR_CODES.idempotencyInProgress,
	422: ERROR_CODES.validationFailed,
	429: ERROR_CODES.rateLimited,
};

/** The contract's error code for a status, for injected faults and anything without its own. */
export function codeForStatus(status: number): ErrorCode {
	return (
		CODE_BY_STATUS[status] ?? (status >= 500 ? ERROR_CODES.serverError : ERROR_CODES.invalidRequest)
	);
}

export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: ErrorCode,
		message: string,
		readonly requiredScope?: Scope,
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}
}

export function badRequest(message: string): ApiError {
	return new ApiError(400, ERROR_CODES.invalidRequest, message);
}

/** RFC 9110: a 405 names the methods the path does support in Allow. */
export function methodNotAllowed(
	method: string,
	path: string,
	allowed: readonly string[],
): ApiError {
	return new ApiError(
		405,
		ERROR_CODES.invalidRequest,
		`${path} does not accept ${method}`,
		undefined,
		{ Allow: allowed.join(', ') },
	);
}

export function unprocessable(message: string): ApiError {
	return new ApiError(422, ERROR_CODES.validationFailed, message);
}

export function notFound(what: string, id: string): ApiError {
	return new ApiError(404, ERROR_CODES.notFound, `No ${what} with id ${JSON.stringify(id)}`);
}

export function orNotFound<T>(value: T | undefined, what: string, id: string): T {
	if (value === undefined) throw notFound(what, id);
	return value;
}

export function rateLimited(message: string, retryAfterSeconds: number): ApiError {
	return new ApiError(429, ERROR_CODES.rateLimited, message, undefined, {
		[RETRY_AFTER_HEADER]: String(retryAfterSeconds),
	});
}

/** Anything thrown that is not an ApiError is a bug in the sandbox: a 500, like a real service. */
export function asApiError(error: unknown): ApiError {
	if (error instanceof ApiError) return error;
	const detail = error instanceof Error ? error.message : String(error);
	return new ApiError(500, ERROR_CODES.serverError, `Internal error: ${detail}`);
}
