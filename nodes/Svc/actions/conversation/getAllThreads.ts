import type { IDataObject } from 'n8n-workflow';

import { THREAD_LIST_FILTERS } from '../../contract';
import { listFilters, returnAllAndLimit } from '../parameters';
import { readList } from '../requests';
import { TOOL_LIMIT_TEXT } from '../tool';
import type { Operation } from '../types';

export const getAllThreads: Operation = {
	option: {
		name: 'Get Many Threads',
		value: 'getAllThreads',
		action: 'Get many threads',
		description: 'List conversation threads, optionally of one lead',
	},
	toolDescription: `List conversation threads in Svc. Pass Lead ID (e.g. lead_0001) to get only that lead's threads. ${TOOL_LIMIT_TEXT} Returns threads, each with id, lead_id, channel, status and last_message_at; a thread's id is what reading its messages takes.`,
	properties: [
		...returnAllAndLimit,
		listFilters(THREAD_LIST_FILTERS, {
			lead_id: {
				displayName: 'Lead ID',
				placeholder: 'e.g. lead_0001',
				description: 'Only the threads of this lead, by its ID, e.g. lead_0001',
			},
		}),
	],
	async execute(op) {
		const filters = op.parameter<IDataObject>('filters', {});
		const qs: IDataObject = {};
		for (const name of THREAD_LIST_FILTERS) {
			const value = filters[name];
			if (typeof value === 'string' && value.trim() !== '') qs[name] = value.trim();
		}
		return await readList(op, 'listThreads', { qs });
	},
};
