/**
 * The failed tests in jest's printed output, each with the first lines of why: `npm run test:all`
 * repeats them under its closing table, because a CI log is often read only from its end, and
 * jest prints a failure's reason minutes of output before it.
 */

/** Terminal colour codes: jest colours its code frames even when its output is not a terminal. */
const COLOUR_CODES = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** Lines of jest's reason kept per failure: enough for the message, not its stack. */
const REASON_LINES = 6;

export interface JestFailure {
	/** jest's `describe › test` line, without its marker. */
	test: string;
	reason: string[];
}

/**
 * Reads jest's output a line at a time. jest prints each failure twice (beside its file and in
 * its closing summary), so a test is kept once per file, with the reason first seen.
 */
export class JestFailures {
	readonly failures: JestFailure[] = [];

	private file = '';
	private reading?: JestFailure;
	private readonly seen = new Set<string>();

	add(printed: string): void {
		const line = printed.replace(COLOUR_CODES, '');
		const fileLine = /^(?:FAIL|PASS) (.+?)(?: \([\d.]+ m?s\))?$/.exec(line.trim());
		const header = /^\s*● (.+)$/.exec(line);
		if (fileLine || header) this.reading = undefined;
		if (fileLine) {
			this.file = fileLine[1];
			return;
		}
		// "● Console" opens a test file's console output, not a failure.
		if (header && header[1] !== 'Console') {
			const test = header[1].trim();
			// Titles repeat across files ("Test suite failed to run"): each file's failure is its own.
			const key = `${this.file} ${test}`;
			if (this.seen.has(key)) return;
			this.seen.add(key);
			this.reading = { test, reason: [] };
			this.failures.push(this.reading);
			return;
		}
		if (!this.reading) return;
		const text = line.trim();
		// The message ends where jest's code frame (`> 12 | …`) or the stack begins.
		const frameOrStack = /^(>\s*)?\d+ \||^\||^at /.test(text);
		if (frameOrStack || this.reading.reason.length >= REASON_LINES) {
			this.reading = undefined;
		} else if (text !== '') {
			this.reading.reason.push(text);
		}
	}
}

/** The failures as jest marks them, so that they read the same wherever they are repeated. */
export function describeFailures(failures: JestFailure[]): string {
	return failures
		.map(({ test, reason }) => [`  ● ${test}`, ...reason.map((line) => `      ${line}`)].join('\n'))
		.join('\n');
}
