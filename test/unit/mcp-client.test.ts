import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolFailure } from '../../harness/mcp-client';

const errorResult = (text: string): CallToolResult => ({
	isError: true,
	content: [{ type: 'text', text }],
});

describe('toolFailure: the failure an MCP error result carries', () => {
	it("reads a single main's `<error name>: <message>`, the message kept whole", () => {
		expect(
			toolFailure(errorResult('NodeOperationError: Refused.\n\nDetails: Ask a person.')),
		).toEqual({
			errorName: 'NodeOperationError',
			message: 'Refused.\n\nDetails: Ask a person.',
		});
		expect(toolFailure(errorResult('Error: Not found'))).toEqual({
			errorName: 'Error',
			message: 'Not found',
		});
	});

	it("reads the 2.41 queue relay's JSON", () => {
		expect(
			toolFailure(
				errorResult('{"error":{"message":"Refused.\\n\\nDetails: x","name":"NodeOperationError"}}'),
			),
		).toEqual({ errorName: 'NodeOperationError', message: 'Refused.\n\nDetails: x' });
		expect(toolFailure(errorResult('{"error":{"message":"Refused."}}'))).toEqual({
			message: 'Refused.',
		});
	});

	it('gives any other text as the message', () => {
		expect(toolFailure(errorResult('something odd'))).toEqual({ message: 'something odd' });
		expect(toolFailure(errorResult('{"result":1}'))).toEqual({ message: '{"result":1}' });
	});
});
