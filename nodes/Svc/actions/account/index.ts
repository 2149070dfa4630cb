import type { Resource } from '../types';
import { getMe } from './getMe';

export const account: Resource = {
	option: { name: 'Account', value: 'account' },
	operations: [getMe],
};
