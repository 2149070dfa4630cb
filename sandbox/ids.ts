import { randomBytes } from 'node:crypto';

/** A record or request id as the service spells them: `<prefix>_` and 16 hex digits. */
export function newId(prefix: string): string {
	return `${prefix}_${randomBytes(8).toString('hex')}`;
}
