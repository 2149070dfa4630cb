import { threadLocator } from '../locators';
import { readOne } from '../requests';
import type { Operation } from '../types';

export const getThread: Operation = {
	option: { name: 'Get Thread', value: 'getThread', action: 'Get a thread', description: 'Retrieve one conversation thread by ID' },
	properties: [threadLocator],
	async execute(op) {
		return await readOne(op, 'getThread', 'thread_id', 'thread');
	},
};
