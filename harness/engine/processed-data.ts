import { DataDeduplicationService } from 'n8n-core';
import { UnexpectedError } from 'n8n-workflow';
import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
} from 'n8n-workflow';

/**
 * n8n's processed-data table (what `helpers.checkProcessedAndRecord` writes) in memory, with the
 * behaviour of n8n's own DeduplicationHelper in 'entries' mode: one row per workflow and scope,
 * read, then written back whole with the new values appended and the oldest beyond `maxEntries`
 * dropped, with no lock between the read and the write.
 */
class InMemoryProcessedData implements IDataDeduplicator {
	readonly rows = new Map<string, string[]>();
	/** How often each row was read and written (`checkProcessedAndRecord` calls), by row key. */
	readonly calls = new Map<string, number>();

	private key(scope: DeduplicationScope, contextData: ICheckProcessedContextData): string {
		if (scope === 'node' && !contextData.node)
			throw new UnexpectedError(
				"No node information has been provided and so cannot use scope 'node'",
			);
		return `${contextData.workflow.id} ${scope === 'node' ? `n:${contextData.node?.id}` : ''}`;
	}

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		if (options.mode !== 'entries')
			throw new UnexpectedError(
				`The harness keeps processed data in 'entries' mode only, not '${options.mode}'`,
			);
		const key = this.key(scope, contextData);
		this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
		const read = [...(this.rows.get(key) ?? [])];
		// n8n awaits the database between its read and its write.
		await Promise.resolve();
		const known = new Set(read);
		const output: IDeduplicationOutput = { new: [], processed: [] };
		for (const item of items) {
			const value = String(item);
			if (known.has(value)) {
				output.processed.push(item);
			} else {
				output.new.push(item);
				read.push(value);
				known.add(value);
			}
		}
		this.rows.set(key, options.maxEntries ? read.slice(-options.maxEntries) : read);
		return output;
	}

	async removeProcessed(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
	): Promise<void> {
		const key = this.key(scope, contextData);
		const remove = new Set(items.map(String));
		this.rows.set(
			key,
			(this.rows.get(key) ?? []).filter((value) => !remove.has(value)),
		);
		return await Promise.resolve();
	}

	async clearAllProcessedItems(
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
	): Promise<void> {
		this.rows.delete(this.key(scope, contextData));
		return await Promise.resolve();
	}

	async getProcessedDataCount(
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
	): Promise<number> {
		return await Promise.resolve(this.rows.get(this.key(scope, contextData))?.length ?? 0);
	}
}

/** The process's processed data, as n8n's start-up installs it (once per process). */
export const processedData = new InMemoryProcessedData();
let installed = false;

export async function installProcessedData(): Promise<void> {
	if (installed) return;
	installed = true;
	await DataDeduplicationService.init(processedData);
}
