/** The contract's API key scopes (documented), and what each lets a key do (see index.ts). */

export const SCOPES = [
	'leads:read',
	'leads:write',
	'conversations:read',
	'conversations:write',
	'conversations:read:sensitive',
	'campaigns:read',
	'campaigns:danger',
	'webhooks:write',
] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * What each scope lets a key do, as a 403 says it to a person. The scopes are documented; these
 * sentences are the project's, in the words the node uses.
 */
export const SCOPE_GRANTS: Record<Scope, string> = {
	'leads:read': 'list and get leads',
	'leads:write': 'create and update leads, and record their consent',
	'conversations:read': 'read conversation threads and messages, with message text masked',
	'conversations:write': 'hand leads to the assistant (it may then greet them)',
	'conversations:read:sensitive': 'read message text in full instead of masked',
	'campaigns:read': 'list and get campaigns',
	'campaigns:danger': 'dispatch approved campaigns',
	'webhooks:write': 'manage webhook subscriptions (Svc Trigger needs it)',
};

export const SENSITIVE_READ_SCOPE: Scope = 'conversations:read:sensitive';
