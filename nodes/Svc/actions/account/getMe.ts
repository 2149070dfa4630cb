import type { Me } from '../../contract';
import type { Operation } from '../types';

export const getMe: Operation = {
	option: {
		name: 'Get Current Identity',
		value: 'getMe',
		action: 'Get the current identity',
		description: 'Return the account and the API key in use (prefix, environment, scopes)',
	},
	toolDescription:
		'Tell which Svc account and API key this tool uses. Takes no input. Returns account (id, name) and key (prefix, environment live or test, scopes, legacy): use the scopes to see what this tool may read or change.',
	properties: [],
	async execute(op) {
		const { body } = await op.client.request<Me>('getMe', { itemIndex: op.itemIndex });
		return { ...body };
	},
};
