import { randomUUID } from 'node:crypto';
import type {
	IAdditionalCredentialOptions,
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
	INode,
	Logger,
	RequestHelperFunctions,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { EndpointName, ListPage } from '../contract';
import {
	buildPath,
	ENDPOINTS,
	IDEMPOTENCY_HEADER,
	IDEMPOTENT_REPLAYED_HEADER,
	LIST_LIMIT_MAX,
	LIST_QUERY,
	RETRY_AFTER_HEADER,
	RETRYABLE_STATUSES,
} from '../contract';
import { checkCredentials, isLegacyApiKey } from './apiKey';
import { isRedirect, NOT_THE_API_TEXT, toNodeApiError, userError } from './errors';
import { RequestGate } from './gate';
import { Redactor } from './redact';

export const CREDENTIAL_TYPE = 'svcApi';

/** What the transport needs from any n8n context (execute, hook, webhook, load options). */
export interface SvcContext {
	getNode(): INode;
	getCredentials<T extends object = ICredentialDataDecryptedObject>(
		type: string,
		itemIndex?: number,
	): Promise<T>;
	helpers: Pick<RequestHelperFunctions, 'httpRequestWithAuthentication'>;
	logger: Logger;
}

export interface RetryPolicy {
	maxAttempts: number;
	/** Timeouts cost a whole timeout each, so fewer of them are retried. */
	maxTimeouts: number;
	baseDelayMs: number;
	maxDelayMs: number;
	/** The longest Retry-After the client will wait out before giving up. */
	maxRetryAfterMs: number;
}

/** Ten attempts keep a write through a 20% failure rate (0.2^10 per item); backoff caps at 4 s. */
export const DEFAULT_RETRY: RetryPolicy = {
	maxAttempts: 10,
	maxTimeouts: 3,
	baseDelayMs: 100,
	maxDelayMs: 4000,
	maxRetryAfterMs: 120_000,
};
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface ClientOptions {
	gate?: RequestGate;
	timeoutMs?: number;
	retry?: Partial<RetryPolicy>;
	/** The credential, when the caller has read it already (n8n decrypts it on every read). */
	credentials?: ICredentialDataDecryptedObject;
}

export interface RequestSpec {
	pathParams?: Record<string, string>;
	qs?: IDataObject;
	body?: IDataObject;
	/** For writes the contract marks; a fresh random key is used when none is given. */
	idempotencyKey?: string;
	itemIndex?: number;
	/** Statuses returned as a response (with their body) instead of failing, e.g. 404 for a delete. */
	answerStatuses?: readonly number[];
}

export interface SvcResponse<T> {
	status: number;
	body: T;
	/** The service replayed the first response of this idempotent write. */
	replayed: boolean;
	idempotencyKey?: string;
}

interface RawResponse {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

const RETRYABLE = new Set<number>(RETRYABLE_STATUSES);

function header(headers: RawResponse['headers'], name: string): string | undefined {
	const value = headers[name.toLowerCase()];
	return Array.isArray(value) ? value[0] : value;
}

function retryAfterMs(headers: RawResponse['headers']): number | undefined {
	const value = header(headers, RETRY_AFTER_HEADER);
	if (value === undefined) return undefined;
	const seconds = Number(value);
	if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The error code of a failed connection, wherever n8n's and axios' wrappers put it. */
export function networkErrorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
		const code = (current as { code?: unknown }).code;
		// Node's codes (ECONNREFUSED, ERR_SSL_…) and OpenSSL's certificate ones (DEPTH_ZERO_SELF_SIGNED_CERT).
		if (typeof code === 'string' && /^E[A-Z_]+$|^ERR_|CERT|SELF_SIGNED|UNABLE_TO_/.test(code))
			return code;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

function isCancellation(error: unknown): boolean {
	return networkErrorCode(error) === 'ERR_CANCELED';
}

const TIMEOUT_CODES = new Set(['ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT']);

/**
 * The only code that talks HTTP to the service: authentication through n8n's credential
 * helpers, the contract's headers, idempotency keys, retries, the shared request gate, error
 * mapping and redaction.
 */
export class SvcClient {
	readonly redactor = new Redactor();
	private readonly retry: RetryPolicy;

	private constructor(
		private readonly ctx: SvcContext,
		readonly baseUrl: string,
		readonly legacyKey: boolean,
		private readonly gate: RequestGate,
		private readonly timeoutMs: number,
		retry: Partial<RetryPolicy> | undefined,
		credentials: ICredentialDataDecryptedObject,
	) {
		this.retry = { ...DEFAULT_RETRY, ...retry };
		const reference = ctx.getNode().credentials?.[CREDENTIAL_TYPE];
		// Handing n8n the credential read in connect() spares it a decryption per request.
		this.credentialOptions = {
			credentialsDecrypted: {
				id: reference?.id ?? '',
				name: reference?.name ?? '',
				type: CREDENTIAL_TYPE,
				data: credentials,
			},
		};
	}

	private readonly credentialOptions: IAdditionalCredentialOptions;

	/** Reads and checks the credential once; a malformed key fails here, before any request. */
	static async connect(ctx: SvcContext, options: ClientOptions = {}): Promise<SvcClient> {
		const credentials =
			options.credentials ??
			(await ctx.getCredentials<ICredentialDataDecryptedObject>(CREDENTIAL_TYPE));
		const checked = checkCredentials(credentials);
		if ('problem' in checked) {
			throw userError(ctx.getNode(), new Redactor().add(credentials.apiKey).text(checked.problem), {
				description: 'Edit the Svc API credential of this node.',
			});
		}
		const { apiKey, baseUrl } = checked;
		const client = new SvcClient(
			ctx,
			baseUrl,
			isLegacyApiKey(apiKey),
			options.gate ?? new RequestGate(),
			options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
			options.retry,
			credentials,
		);
		client.redactor.add(apiKey).add(credentials.apiKey);
		return client;
	}

	async request<T>(name: EndpointName, spec: RequestSpec = {}): Promise<SvcResponse<T>> {
		const endpoint = ENDPOINTS[name];
		const path = buildPath(endpoint.path, spec.pathParams);
		const headers: IDataObject = { Accept: 'application/json' };
		let idempotencyKey: string | undefined;
		if (endpoint.idempotency !== 'none') {
			// One key per logical write, kept for every retry below.
			idempotencyKey = spec.idempotencyKey ?? randomUUID();
			headers[IDEMPOTENCY_HEADER] = idempotencyKey;
		}
		const hasBody = endpoint.method === 'POST';
		if (hasBody) headers['Content-Type'] = 'application/json';
		const options: IHttpRequestOptions = {
			method: endpoint.method,
			url: `${this.baseUrl}${path}`,
			headers,
			qs: spec.qs,
			body: hasBody ? (spec.body ?? {}) : undefined,
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: this.timeoutMs,
			// The service never redirects its API: a 3xx means a wrong Base URL, and following it
			// would send the key wherever it points. Not following is also cheaper per request.
			disableFollowRedirect: true,
		};

		let timeouts = 0;
		for (let attempt = 1; ; attempt++) {
			await this.gate.admit();
			let response: RawResponse;
			try {
				response = (await this.ctx.helpers.httpRequestWithAuthentication.call(
					this.ctx as never,
					CREDENTIAL_TYPE,
					options,
					this.credentialOptions,
				)) as RawResponse;
			} catch (error) {
				const networkCode = networkErrorCode(error) ?? 'no response';
				if (TIMEOUT_CODES.has(networkCode)) timeouts++;
				if (
					isCancellation(error) ||
					attempt >= this.retry.maxAttempts ||
					timeouts >= this.retry.maxTimeouts
				) {
					throw toNodeApiError(
						this.ctx.getNode(),
						{
							endpoint,
							networkCode,
							attempts: attempt,
							baseUrl: this.baseUrl,
							itemIndex: spec.itemIndex,
						},
						this.redactor,
					);
				}
				this.ctx.logger.debug(`Svc ${name}: ${networkCode}, retrying (attempt ${attempt})`);
				await sleep(this.backoffMs(attempt));
				continue;
			}

			const status = response.statusCode;
			// A redirect's body is often a web page; what the user needs to know is that it was one.
			const body = isRedirect(status)
				? undefined
				: this.parseBody(response.body, name, status, spec.itemIndex);
			if ((status >= 200 && status < 300) || spec.answerStatuses?.includes(status) === true) {
				return {
					status,
					body: body as T,
					replayed: header(response.headers, IDEMPOTENT_REPLAYED_HEADER) === 'true',
					idempotencyKey,
				};
			}
			// What this answer fails with: after the last attempt, or a wait longer than allowed.
			const failure = () =>
				toNodeApiError(
					this.ctx.getNode(),
					{
						endpoint,
						status,
						body,
						attempts: attempt,
						baseUrl: this.baseUrl,
						itemIndex: spec.itemIndex,
						retryAfterMs: retryAfterMs(response.headers),
					},
					this.redactor,
				);
			if (RETRYABLE.has(status) && attempt < this.retry.maxAttempts) {
				const told = retryAfterMs(response.headers);
				if (told !== undefined && told > this.retry.maxRetryAfterMs) {
					throw failure();
				}
				if (status === 429) {
					// Every worker of this execution waits, not just this one.
					this.gate.pause(told ?? this.backoffMs(attempt));
				} else {
					await sleep(told ?? this.backoffMs(attempt));
				}
				this.ctx.logger.debug(`Svc ${name}: status ${status}, retrying (attempt ${attempt})`);
				continue;
			}
			throw failure();
		}
	}

	/**
	 * Follows next_cursor until the end or until `max` records, sending every filter on every
	 * page. `max` undefined returns everything.
	 */
	async paginate<T>(name: EndpointName, spec: RequestSpec & { max?: number } = {}): Promise<T[]> {
		const records: T[] = [];
		const seenCursors = new Set<string>();
		let cursor: string | null = null;
		do {
			const remaining = spec.max === undefined ? LIST_LIMIT_MAX : spec.max - records.length;
			const qs: IDataObject = {
				...spec.qs,
				[LIST_QUERY.limit]: Math.min(LIST_LIMIT_MAX, remaining),
			};
			if (cursor !== null) qs[LIST_QUERY.cursor] = cursor;
			const page: ListPage<T> = (await this.request<ListPage<T>>(name, { ...spec, qs })).body;
			if (!Array.isArray(page?.data)) {
				throw new NodeOperationError(
					this.ctx.getNode(),
					`The service answered ${ENDPOINTS[name].path} without a data list`,
					{
						itemIndex: spec.itemIndex,
					},
				);
			}
			records.push(...page.data);
			cursor = page.next_cursor ?? null;
			if (cursor !== null) {
				if (seenCursors.has(cursor)) {
					throw new NodeOperationError(
						this.ctx.getNode(),
						'The service returned the same page cursor twice; stopped to avoid an endless loop',
						{
							itemIndex: spec.itemIndex,
						},
					);
				}
				seenCursors.add(cursor);
			}
		} while (cursor !== null && (spec.max === undefined || records.length < spec.max));
		return spec.max === undefined ? records : records.slice(0, spec.max);
	}

	/** Capped exponential backoff with full jitter. */
	private backoffMs(attempt: number): number {
		const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
		return Math.round(Math.random() * ceiling);
	}

	private parseBody(
		body: unknown,
		name: EndpointName,
		status: number,
		itemIndex: number | undefined,
	): unknown {
		if (typeof body !== 'string') return body;
		if (body === '') return {};
		try {
			return JSON.parse(body) as unknown;
		} catch {
			throw new NodeOperationError(
				this.ctx.getNode(),
				`The service answered ${ENDPOINTS[name].path} with status ${status} and a body that is not JSON`,
				{ itemIndex, description: NOT_THE_API_TEXT },
			);
		}
	}
}
