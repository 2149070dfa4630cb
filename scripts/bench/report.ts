/** The report's building blocks: a table with its notes, rendered as markdown, and cell formats. */
import { fmt, median } from './stats';

export interface Table {
	title: string;
	columns: string[];
	rows: string[][];
	notes: string[];
}

export const yes = (met: boolean): string => (met ? 'yes' : '**NO**');
export const seconds = (ms: number): string => fmt(ms / 1000, 's');
export const milliseconds = (ms: number): string => fmt(ms, 'ms');
export const mb = (kb: number): string => fmt(kb / 1024, 'MB');

export function medianOf<T>(list: T[], pick: (item: T) => number): number {
	return median(list.map(pick));
}

/** "median (min–max)": how much the repetitions differed. */
export function spread(values: number[], show: (value: number) => string): string {
	if (values.length === 0) return 'n/a';
	if (values.length === 1) return show(values[0]);
	return `${show(median(values))} (${show(Math.min(...values))}–${show(Math.max(...values))})`;
}

/** "success ×3, error ×1". */
export function statusSummary(statuses: string[]): string {
	const counts = new Map<string, number>();
	for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
	return [...counts].map(([status, count]) => `${status} ×${count}`).join(', ');
}

export function markdownTable(table: Table): string {
	const widths = table.columns.map((column, index) => Math.max(column.length, ...table.rows.map((row) => (row[index] ?? '').length)));
	const line = (cells: string[]): string => `| ${widths.map((width, index) => (cells[index] ?? '').padEnd(width)).join(' | ')} |`;
	return [
		`### ${table.title}`,
		'',
		line(table.columns),
		`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
		...table.rows.map(line),
		...(table.notes.length > 0 ? ['', ...table.notes.map((note) => `- ${note}`)] : []),
		'',
	].join('\n');
}
