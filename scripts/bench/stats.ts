/** Small numeric and formatting helpers shared by the benchmark modules. */

export function median(values: number[]): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function max(values: number[]): number {
	return values.length === 0 ? Number.NaN : Math.max(...values);
}

/** A number with a sensible count of digits for a table cell: 0.0123, 1.23, 12.3, 1,234. */
export function fmt(value: number, unit = ''): string {
	if (!Number.isFinite(value)) return 'n/a';
	const abs = Math.abs(value);
	let text: string;
	if (abs >= 1000) text = Math.round(value).toLocaleString('en-US');
	else if (abs >= 100) text = value.toFixed(0);
	else if (abs >= 10) text = value.toFixed(1);
	else if (abs >= 1) text = value.toFixed(2);
	else if (abs === 0) text = '0';
	else text = value.toPrecision(3);
	return unit ? `${text} ${unit}` : text;
}

/** A whole count (requests, items, connections). */
export function count(value: number): string {
	return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a';
}

export function ratio(numerator: number, denominator: number): number {
	return denominator > 0 ? numerator / denominator : Number.NaN;
}

/** The nearest-rank percentile `p` (0–100) of `values`. */
export function percentile(values: number[], p: number): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
