/** A markdown table, its columns padded so that it also reads well as plain text in a terminal. */
export function markdownTable(columns: string[], rows: string[][]): string {
	const widths = columns.map((column, index) =>
		Math.max(column.length, ...rows.map((row) => (row[index] ?? '').length)),
	);
	const line = (cells: string[]): string =>
		`| ${widths.map((width, index) => (cells[index] ?? '').padEnd(width)).join(' | ')} |`;
	return [
		line(columns),
		`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
		...rows.map(line),
	].join('\n');
}
