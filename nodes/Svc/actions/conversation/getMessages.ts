import { SENSITIVE_READ_SCOPE } from '../../contract';
import { locatorValue, threadLocator } from '../locators';
import { returnAllAndLimit, simplifyOption } from '../parameters';
import { readList } from '../requests';
import { simplifyMessage } from '../simplify';
import type { Operation } from '../types';

export const MASKED_NOTICE = `Content is masked: full message content needs an API key with the ${SENSITIVE_READ_SCOPE} scope`;

export const getMessages: Operation = {
	option: {
		name: 'Get Messages',
		value: 'getMessages',
		action: 'Get messages of a thread',
		description: `List the messages of a thread; content is masked unless the key has ${SENSITIVE_READ_SCOPE}`,
	},
	properties: [threadLocator, ...returnAllAndLimit, simplifyOption],
	async execute(op) {
		const threadId = locatorValue(op, 'thread');
		const all = await readList(op, 'listMessages', { pathParams: { thread_id: threadId } });
		const messages = op.parameter('simplify', false) ? all.map(simplifyMessage) : all;
		if (!messages.some((message) => message.masked === true)) return messages;
		op.hint(MASKED_NOTICE);
		return messages.map((message) => (message.masked === true ? { ...message, masked_reason: MASKED_NOTICE } : message));
	},
};
