import { JestFailures, describeFailures } from '../../harness/jest-failures';

/** jest 29's printed output for two failing files, one with console output, as jest --ci prints it. */
const JEST_OUTPUT = `FAIL ./a.test.js
  ● Console

    console.log
      hello

      at Object.log (a.test.js:2:48)

  ● outer › fails with a message

    expect(received).toBe(expected) // Object.is equality

    Expected: 3
    Received: 2

      1 | describe('outer', () => {
    > 2 |   test('fails with a message', () => { expect(1 + 1).toBe(3); });
        |                                                      ^
      3 | });

      at Object.toBe (a.test.js:2:76)

FAIL ./b.test.js
  ● throws

    not reached within 120000 ms
    second line

    > 1 | test('throws', async () => { throw new Error('not reached'); });
        |                                    ^

      at Object.<anonymous> (b.test.js:1:36)

Summary of all failing tests
FAIL ./b.test.js
  ● throws

    not reached within 120000 ms
    second line

Test Suites: 2 failed, 2 total
Tests:       2 failed, 1 passed, 3 total`;

describe('JestFailures', () => {
	it('keeps each failed test once with its message, not its console output, code frame or stack', () => {
		const failures = new JestFailures();
		for (const line of JEST_OUTPUT.split('\n')) failures.add(line);
		expect(failures.failures).toEqual([
			{
				test: 'outer › fails with a message',
				reason: [
					'expect(received).toBe(expected) // Object.is equality',
					'Expected: 3',
					'Received: 2',
				],
			},
			{ test: 'throws', reason: ['not reached within 120000 ms', 'second line'] },
		]);
		expect(describeFailures(failures.failures)).toBe(
			[
				'  ● outer › fails with a message',
				'      expect(received).toBe(expected) // Object.is equality',
				'      Expected: 3',
				'      Received: 2',
				'  ● throws',
				'      not reached within 120000 ms',
				'      second line',
			].join('\n'),
		);
	});

	it("keeps two files' failures of one title apart, ends a reason at the next file or console output, and reads through colour codes", () => {
		const failures = new JestFailures();
		const output = [
			'FAIL e2e, n8n v1 test/e2e/one.test.ts (11.6 s)',
			'  ● Test suite failed to run',
			'',
			'    Cannot find module ./missing',
			'FAIL e2e, n8n v2 test/e2e/two.test.ts',
			'  ● Test suite failed to run',
			'    Unexpected token',
			'  ● Console',
			'    console.log',
			'      noise',
			'FAIL e2e, n8n v1 test/e2e/three.test.ts (2 s)',
			'  ● a test',
			'    expect(received).toHaveLength(expected)',
			'\u001b[0m \u001b[90m 130 |\u001b[39m \t\t\t\t\t\u001b[32m`/workflows`\u001b[39m',
			'    after the frame',
			'Summary of all failing tests',
			'FAIL e2e, n8n v1 test/e2e/one.test.ts',
			'  ● Test suite failed to run',
			'    Cannot find module ./missing',
		];
		for (const line of output) failures.add(line);
		expect(failures.failures).toEqual([
			{ test: 'Test suite failed to run', reason: ['Cannot find module ./missing'] },
			{ test: 'Test suite failed to run', reason: ['Unexpected token'] },
			{ test: 'a test', reason: ['expect(received).toHaveLength(expected)'] },
		]);
	});

	it('keeps only the first lines of a long reason', () => {
		const failures = new JestFailures();
		for (const line of ['  ● long', ...Array.from({ length: 20 }, (_, i) => `    line ${i}`)]) {
			failures.add(line);
		}
		expect(failures.failures[0].reason).toEqual(Array.from({ length: 6 }, (_, i) => `line ${i}`));
	});
});
