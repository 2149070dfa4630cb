import { SENSITIVE_READ_SCOPE } from '../../contract';
import { locatorValue, threadLocator } from '../locators';
import { returnAllAndLimit, simplifyOption } from '../parameters';
import { readList } from '../requests';
import { simplifyMessage } from '../simplify';
import { TOOL_LIMIT_TEXT } from '../tool';
import type { Operation } from '../types';

/**
 * Said once per execution as a hint, not copied onto every masked message: `masked: true` already
 * marks each one, and a repeated sentence per item only makes lists (and a model's input) longer.
 */
export const MASKED_NOTICE = `Message content is masked: the API key lacks the ${SENSITIVE_READ_SCOPE} scope. To read full content, create a key with that scope in the service's dashboard (Settings > API keys) and put it in the Svc API credential.`;

export const getMessages: Operation = {
	option: {
		name: 'Get Messages',
		value: 'getMessages',
		action: 'Get messages of a thread',
		description: `List the messages of a thread; content is masked unless the key has ${SENSITIVE_READ_SCOPE}`,
	},
	toolDescription: `Read the messages of one conversation thread in Svc. Pass Thread: the thread's ID, e.g. thr_0001. ${TOOL_LIMIT_TEXT} Returns messages, each with id, direction (inbound or outbound), content, masked and created_at. When masked is true the content is hidden because the API key lacks the ${SENSITIVE_READ_SCOPE} scope: say so, do not guess the content.`,
	properties: [threadLocator, ...returnAllAndLimit, ...simplifyOption],
	async execute(op) {
		const threadId = locatorValue(op, 'thread');
		const all = await readList(op, 'listMessages', { pathParams: { thread_id: threadId } });
		const messages = op.parameter('simplify', false) ? all.map(simplifyMessage) : all;
		if (messages.some((message) => message.masked === true)) op.hint(MASKED_NOTICE);
		return messages;
	},
};
