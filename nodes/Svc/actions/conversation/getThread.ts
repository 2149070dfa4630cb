import { readOne, resourceLocator } from '../common';
import type { Operation } from '../types';

export const threadLocator = resourceLocator({
	name: 'threadId',
	displayName: 'Thread',
	searchListMethod: 'searchThreads',
	what: 'thread',
	placeholder: 'e.g. thr_0001',
});

export const getThread: Operation = {
	option: { name: 'Get Thread', value: 'getThread', action: 'Get a thread', description: 'Retrieve one conversation thread by ID' },
	properties: [threadLocator],
	async execute(op) {
		return await readOne(op, 'getThread', 'thread_id', { name: 'threadId', what: 'thread' });
	},
};
