import type { IDataObject } from 'n8n-workflow';

import { THREAD_LIST_FILTERS } from '../../contract';
import { listFilters, returnAllAndLimit } from '../parameters';
import { readList } from '../requests';
import type { Operation } from '../types';

export const getAllThreads: Operation = {
	option: { name: 'Get Many Threads', value: 'getAllThreads', action: 'Get many threads', description: 'List conversation threads, optionally of one lead' },
	properties: [
		...returnAllAndLimit,
		listFilters(THREAD_LIST_FILTERS, { lead_id: { displayName: 'Lead ID', description: 'Only the threads of this lead' } }),
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
