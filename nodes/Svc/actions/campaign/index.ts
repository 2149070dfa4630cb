import type { Resource } from '../types';
import { dispatch } from './dispatch';
import { get } from './get';
import { getMany } from './getMany';

export const campaign: Resource = {
	option: { name: 'Campaign', value: 'campaign' },
	operations: [get, getMany, dispatch],
};
