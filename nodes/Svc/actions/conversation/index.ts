import type { Resource } from '../types';
import { assistantTakeover } from './assistantTakeover';
import { getAllThreads } from './getAllThreads';
import { getMessages } from './getMessages';
import { getThread } from './getThread';

export const conversation: Resource = {
	option: { name: 'Conversation', value: 'conversation' },
	operations: [getAllThreads, getThread, getMessages, assistantTakeover],
};
