import type { Thread } from '../../contract';
import { locatorValue, resourceLocator } from '../common';
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
		const threadId = locatorValue(op, 'threadId', 'thread');
		const { body } = await op.client.request<Thread>('getThread', { pathParams: { thread_id: threadId }, itemIndex: op.itemIndex });
		return { ...body };
	},
};
