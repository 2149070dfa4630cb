import type { Resource } from '../types';
import { assistantTakeover } from './assistantTakeover';
import { getManyThreads } from './getManyThreads';
import { getMessages } from './getMessages';
import { getThread } from './getThread';

export const conversation: Resource = {
	option: { name: 'Conversation', value: 'conversation' },
	operations: [getManyThreads, getThread, getMessages, assistantTakeover],
};
