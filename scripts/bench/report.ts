/** The report's building blocks: a table with its notes, rendered as markdown, and cell formats. */
import { markdownTable } from '../../harness/markdown-table';
import { fmt, median } from './stats';

export interface Table {
	title: string;
	columns: string[];
	rows: string[][];
	notes: string[];
}

export const yes = (met: boolean): string => (met ? 'yes' : '**NO**');
/** A duration given in milliseconds, shown in seconds. */
export const msAsSeconds = (ms: number): string => fmt(ms / 1000, 's');
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

/** The table under its title, with its notes below. */
export function markdownSection(table: Table): string {
	return [
		`### ${table.title}`,
		'',
		markdownTable(table.columns, table.rows),
		...(table.notes.length > 0 ? ['', ...table.notes.map((note) => `- ${note}`)] : []),
		'',
	].join('\n');
}
