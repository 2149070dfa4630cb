import type { Resource } from '../types';
import { dispatch } from './dispatch';
import { get } from './get';
import { getAll } from './getAll';

export const campaign: Resource = {
	option: { name: 'Campaign', value: 'campaign' },
	operations: [get, getAll, dispatch],
};
