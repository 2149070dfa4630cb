import type { Me } from '../../contract';
import type { Operation } from '../types';

export const getMe: Operation = {
	option: {
		name: 'Get Current Identity',
		value: 'getMe',
		action: 'Get the current identity',
		description: 'Return the account and the API key in use (prefix, environment, scopes)',
	},
	properties: [],
	async execute(op) {
		const { body } = await op.client.request<Me>('getMe', { itemIndex: op.itemIndex });
		return { ...body };
	},
};
