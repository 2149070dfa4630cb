import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { ApiErrorBody, Scope } from '../nodes/Svc/contract';
import { ERROR_CODES, RETRY_AFTER_HEADER } from '../nodes/Svc/contract';

export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

/** What a handler answers; the server adds the request id and serialises it. */
export interface JsonResponse {
	status: number;
	body: unknown;
	headers?: Record<string, string>;
}

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

export function errorResponse(error: ApiError, requestId: string): JsonResponse {
	const body: ApiErrorBody = {
		error: { code: error.code, message: error.message, request_id: requestId },
	};
	if (error.requiredScope !== undefined) body.error.required_scope = error.requiredScope;
	return { status: error.status, body, headers: error.headers };
}

export function newId(prefix: string): string {
	return `${prefix}_${randomBytes(8).toString('hex')}`;
}

export function writeJson(res: ServerResponse, response: JsonResponse, requestId: string): void {
	const payload = JSON.stringify(response.body);
	res.writeHead(response.status, {
		'content-type': 'application/json; charset=utf-8',
		'content-length': String(Buffer.byteLength(payload)),
		'x-request-id': requestId,
		...response.headers,
	});
	res.end(payload);
}

const MAX_BODY_BYTES = 1024 * 1024;

/** Reads the whole body; past the size cap it keeps draining so a 413 can still be answered. */
export function readBody(req: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size <= MAX_BODY_BYTES) chunks.push(chunk);
		});
		req.on('end', () => {
			if (size > MAX_BODY_BYTES)
				reject(
					new ApiError(
						413,
						ERROR_CODES.invalidRequest,
						`The request body is larger than ${MAX_BODY_BYTES} bytes`,
					),
				);
			else resolve(Buffer.concat(chunks).toString('utf8'));
		});
		req.on('error', reject);
	});
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A body must be sent as application/json; an empty one needs no Content-Type. */
export function checkJsonContentType(raw: string, contentType: string | undefined): void {
	const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
	if (raw.trim() !== '' && mediaType !== 'application/json') {
		throw badRequest(
			`The body must be sent with Content-Type: application/json (got ${contentType === undefined ? 'no Content-Type' : JSON.stringify(contentType)})`,
		);
	}
}

/** A body must be a JSON object. An empty one counts as `{}`, since several operations take no fields. */
export function parseJsonObject(raw: string): Record<string, unknown> {
	if (raw.trim() === '') return {};
	let parsed: unknown;
	try {
		parsed = JSON.parse(raw);
	} catch (error) {
		throw badRequest(
			`The body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
		);
	}
	if (!isPlainObject(parsed)) throw badRequest('The body must be a JSON object');
	return parsed;
}

/** JSON with object keys sorted at every depth: two bodies that mean the same hash the same. */
export function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
	if (isPlainObject(value)) {
		const members = Object.keys(value)
			.filter((key) => value[key] !== undefined)
			.sort()
			.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`);
		return `{${members.join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}
