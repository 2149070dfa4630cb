const REDACTED = '[redacted]';

/**
 * Removes secrets (the API key, its Authorization header value, signing secrets) from text
 * before it reaches an error, a log line or an output item.
 */
export class Redactor {
	private readonly secrets = new Set<string>();

	add(secret: unknown): this {
		// Very short strings would redact ordinary words; real keys and secrets are long.
		if (typeof secret === 'string' && secret.length >= 8) {
			this.secrets.add(secret);
			this.secrets.add(encodeURIComponent(secret));
		}
		return this;
	}

	text(value: string): string {
		let result = value;
		for (const secret of this.secrets) {
			if (result.includes(secret)) result = result.split(secret).join(REDACTED);
		}
		// Keys in accepted formats and whsec_ secrets never pass, even ones this redactor was not told about.
		return result
			.replace(/\b(svc|ok)_(live|test)_[A-Za-z0-9]{8,}/g, REDACTED)
			.replace(/whsec_[A-Za-z0-9+/=]{8,}/g, REDACTED)
			.replace(/(Bearer\s+)[^\s"',]+/gi, `$1${REDACTED}`);
	}

	/** Deep copy of a JSON-like value with every string redacted. */
	value<T>(input: T): T {
		if (typeof input === 'string') return this.text(input) as T;
		if (Array.isArray(input)) return input.map((entry: unknown) => this.value(entry)) as T;
		if (input !== null && typeof input === 'object') {
			const copy: Record<string, unknown> = {};
			for (const [key, entry] of Object.entries(input as Record<string, unknown>))
				copy[key] = this.value(entry);
			return copy as T;
		}
		return input;
	}
}

export { REDACTED };
