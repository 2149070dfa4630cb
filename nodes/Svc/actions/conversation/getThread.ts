import { threadLocator } from '../locators';
import { readOne } from '../requests';
import type { Operation } from '../types';

export const getThread: Operation = {
	option: {
		name: 'Get Thread',
		value: 'getThread',
		action: 'Get a thread',
		description: 'Retrieve one conversation thread by ID',
	},
	toolDescription:
		"Get one conversation thread from Svc by its ID. Pass Thread: the thread's ID, e.g. thr_0001. Returns id, lead_id, channel, status and last_message_at.",
	properties: [threadLocator],
	async execute(op) {
		return await readOne(op, 'getThread', 'thread_id', 'thread');
	},
};
