/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * HTTP bodies in and out: a request's body read whole (with a size cap) and checked to be a JSON
 * object, and JSON answers, errors in the contract's error body. The harness's scripted model
 * reads and answers with the same two helpers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { ApiErrorBody } from '../nodes/Svc/contract';
import { ERROR_CODES } from '../nodes/Svc/contract';
import { ApiError, badRequest } from './errors';
import { isPlainObject } from './json';

/** What a handler answers; the server adds the request id and serialises it. */
export interface JsonResponse {
	status: number;
	body: unknown;
	headers?: Record<string, string>;
}

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads the whole body; past the size cap it keeps draining so a 413 can still be answered, and
 * rejects with that 413 as an ApiError.
 */
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

/**
 * Answers `response` as JSON. The sandbox names the request each answer belongs to; the scripted
 * model has no request ids.
 */
export function sendJson(res: ServerResponse, response: JsonResponse, requestId?: string): void {
	const payload = JSON.stringify(response.body);
	res.writeHead(response.status, {
		'content-type': 'application/json; charset=utf-8',
		'content-length': String(Buffer.byteLength(payload)),
		...(requestId === undefined ? {} : { 'x-request-id': requestId }),
		...response.headers,
	});
	res.end(payload);
}

/** The contract's error body for `error`, naming the request it answers. */
export function errorResponse(error: ApiError, requestId: string): JsonResponse {
	const body: ApiErrorBody = {
		error: { code: error.code, message: error.message, request_id: requestId },
	};
	if (error.requiredScope !== undefined) body.error.required_scope = error.requiredScope;
	return { status: error.status, body, headers: error.headers };
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
