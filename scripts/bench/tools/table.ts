/** (t)'s table: bytes per answer, the Svc tool beside the HTTP Request Tool, with the targets. */
import { TOOL_DEFAULT_LIMIT } from '../../../nodes/Svc/actions/tool';
import type { Table } from '../report';
import { yes } from '../report';
import { fmt } from '../stats';
import type { ToolAnswer } from './answers';

const bytes = (count: number): string => `${fmt(count)} B`;

export function tableT(answers: ToolAnswer[]): Table {
	const rows = answers.map((answer) => {
		const smaller = answer.svcBytes <= answer.httpBytes;
		const bounded = !answer.list || answer.svcRecords <= TOOL_DEFAULT_LIMIT;
		return [
			answer.label,
			bytes(answer.svcBytes),
			String(answer.svcRecords),
			bytes(answer.httpBytes),
			String(answer.httpRecords),
			fmt(answer.svcBytes / Math.max(1, answer.httpBytes)),
			yes(smaller && bounded && answer.svcError === undefined),
		];
	});
	const errors = answers.flatMap((answer) => [
		...(answer.svcError
			? [`${answer.label}: the Svc tool answered an error: ${answer.svcError}`]
			: []),
		...(answer.httpError
			? [`${answer.label}: the HTTP Request Tool answered an error: ${answer.httpError}`]
			: []),
	]);
	return {
		title: '(t) Bytes a model receives per call, each read operation as a tool with its defaults',
		columns: [
			'operation',
			'Svc tool',
			'records',
			'HTTP Request Tool',
			'records',
			'Svc ÷ HTTP',
			'target met',
		],
		rows,
		notes: [
			`Target: no Svc answer larger than the HTTP Request Tool's for the same call, and every Svc list answer bounded (at most ${TOOL_DEFAULT_LIMIT} records by default).`,
			'Both tools hang off one published MCP Server Trigger and are called through the official MCP client with no arguments; bytes are the UTF-8 text of the tool result. The sandbox holds the 12 seed leads plus 200, and a thread of 60 messages.',
			"HTTP Request Tool 4.2: GET with the Svc API credential (predefined credential type), default options, so one page of the service's default size (25) for a list.",
			...errors,
		],
	};
}
