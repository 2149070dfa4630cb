import type { ListPage } from '../nodes/Svc/contract';
import { badRequest } from './errors';
import { isPlainObject } from './json';

interface Entry<T> {
	seq: number;
	value: T;
}

/**
 * Objects by id in insertion order. Each gets a sequence number that never changes, so a cursor
 * ("after sequence N") stays valid when other objects are added or deleted.
 */
export class Collection<T extends { id: string }> {
	private readonly entries = new Map<string, Entry<T>>();
	private nextSeq = 1;

	constructor(readonly name: string) {}

	get size(): number {
		return this.entries.size;
	}

	get(id: string): T | undefined {
		return this.entries.get(id)?.value;
	}

	/** The insertion rank of an id; one not stored yet ranks after all (it will be the newest). */
	order(id: string): number {
		return this.entries.get(id)?.seq ?? Number.POSITIVE_INFINITY;
	}

	/** Inserts, or replaces in place (keeping the position in lists). */
	set(value: T): T {
		const existing = this.entries.get(value.id);
		if (existing) existing.value = value;
		else this.entries.set(value.id, { seq: this.nextSeq++, value });
		return value;
	}

	delete(id: string): boolean {
		return this.entries.delete(id);
	}

	*values(): IterableIterator<T> {
		for (const entry of this.entries.values()) yield entry.value;
	}

	clear(): void {
		this.entries.clear();
		this.nextSeq = 1;
	}

	page(
		limit: number,
		cursor: string | undefined,
		filter: (value: T) => boolean = () => true,
	): ListPage<T> {
		const after = cursor === undefined ? 0 : this.decodeCursor(cursor);
		const data: T[] = [];
		let last = after;
		for (const entry of this.entries.values()) {
			if (entry.seq <= after || !filter(entry.value)) continue;
			if (data.length === limit) return { data, next_cursor: this.encodeCursor(last) };
			data.push(entry.value);
			last = entry.seq;
		}
		return { data, next_cursor: null };
	}

	private encodeCursor(seq: number): string {
		return Buffer.from(JSON.stringify({ list: this.name, after: seq })).toString('base64url');
	}

	private decodeCursor(cursor: string): number {
		let decoded: unknown;
		try {
			decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
		} catch {
			decoded = undefined;
		}
		// A cursor from another list, or a hand-made one, is refused rather than guessed at.
		if (
			!isPlainObject(decoded) ||
			decoded.list !== this.name ||
			!Number.isSafeInteger(decoded.after) ||
			(decoded.after as number) < 0
		) {
			throw badRequest(
				'cursor is not valid: pass the next_cursor of the previous page of this list unchanged',
			);
		}
		return decoded.after as number;
	}
}
