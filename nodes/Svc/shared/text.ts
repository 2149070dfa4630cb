/** A parameter or input value as text: strings as they are, numbers and booleans printed, anything else empty. */
export function asText(value: unknown): string {
	if (typeof value === 'string') return value;
	if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
		return String(value);
	return '';
}
