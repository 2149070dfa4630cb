/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- throwaway test values, not secrets */
import type { Me, Scope } from '../nodes/Svc/contract';
import {
	ACCEPTED_KEY_FORMATS_TEXT,
	API_KEY_PATTERN,
	ERROR_CODES,
	KEY_PREFIXES,
	SCOPES,
} from '../nodes/Svc/contract';
import { ApiError, badRequest } from './errors';

export interface SandboxKey {
	key: string;
	scopes: Scope[];
	label?: string;
}

const ALL_SCOPES: Scope[] = [...SCOPES];

/** Fixed demo keys, so docs, the CLI and tests can name them. They only work in the sandbox. */
export const DEMO_KEYS: SandboxKey[] = [
	{ key: 'svc_test_FullAccessDemoKey0000001', scopes: ALL_SCOPES, label: 'all scopes' },
	{
		key: 'svc_test_ReadOnlyDemoKey000000002',
		scopes: ['leads:read', 'conversations:read', 'campaigns:read'],
		label: 'read only',
	},
	{
		key: 'svc_test_NoSensitiveDemoKey000003',
		scopes: ALL_SCOPES.filter(
			(scope) => scope !== 'conversations:read:sensitive' && scope !== 'campaigns:danger',
		),
		label: 'all scopes except conversations:read:sensitive and campaigns:danger',
	},
	{
		key: 'ok_test_LegacyDemoKey00000000004',
		scopes: ALL_SCOPES,
		label: 'legacy format, all scopes',
	},
	{
		key: 'svc_live_LiveFormatDemoKey0000005',
		scopes: ALL_SCOPES,
		label: 'live format, all scopes',
	},
];

const KNOWN_SCOPES = new Set<string>(SCOPES);
const LEGACY_PREFIXES: readonly string[] = KEY_PREFIXES.legacy;
/** How much of a key /v1/me shows: enough to tell keys apart, never the secret. */
const PREFIX_LENGTH = 12;

/** Checks a key given to the admin API or the options, so a typo fails loudly at setup. */
export function checkSandboxKey(input: unknown): SandboxKey {
	const candidate = input as Partial<SandboxKey> | null;
	if (typeof candidate?.key !== 'string' || !API_KEY_PATTERN.test(candidate.key)) {
		throw badRequest(`key must have the format ${ACCEPTED_KEY_FORMATS_TEXT}`);
	}
	if (
		!Array.isArray(candidate.scopes) ||
		!candidate.scopes.every((scope) => KNOWN_SCOPES.has(scope))
	) {
		throw badRequest(`scopes must be an array of: ${SCOPES.join(', ')}`);
	}
	if (candidate.label !== undefined && typeof candidate.label !== 'string')
		throw badRequest('label must be a string');
	return { key: candidate.key, scopes: [...candidate.scopes], label: candidate.label };
}

export class KeyRing {
	private readonly keys = new Map<string, SandboxKey>();

	constructor(private readonly initial: SandboxKey[]) {
		this.reset();
	}

	add(key: SandboxKey): SandboxKey {
		const checked = checkSandboxKey(key);
		this.keys.set(checked.key, checked);
		return checked;
	}

	reset(): void {
		this.keys.clear();
		for (const key of this.initial) this.add(key);
	}

	list(): SandboxKey[] {
		return [...this.keys.values()];
	}

	/** The key behind an Authorization header; messages never repeat what was sent. */
	authenticate(authorization: string | undefined): SandboxKey {
		const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
		if (!match) {
			throw new ApiError(
				401,
				ERROR_CODES.invalidApiKey,
				'Missing API key: send Authorization: Bearer <API_KEY>',
			);
		}
		if (!API_KEY_PATTERN.test(match[1])) {
			throw new ApiError(
				401,
				ERROR_CODES.invalidApiKey,
				`The API key is malformed; expected ${ACCEPTED_KEY_FORMATS_TEXT}`,
			);
		}
		const key = this.keys.get(match[1]);
		if (!key)
			throw new ApiError(
				401,
				ERROR_CODES.invalidApiKey,
				'The API key is invalid, revoked or mistyped',
			);
		return key;
	}
}

export function describeKey(key: SandboxKey): Me['key'] {
	return {
		prefix: key.key.slice(0, PREFIX_LENGTH),
		environment: key.key.includes('_live_') ? 'live' : 'test',
		scopes: [...key.scopes],
		legacy: LEGACY_PREFIXES.some((prefix) => key.key.startsWith(prefix)),
	};
}
