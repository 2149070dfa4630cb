import type { Resource } from '../types';
import { get } from './get';
import { getMany } from './getMany';
import { upsert } from './upsert';

export const lead: Resource = {
	option: { name: 'Lead', value: 'lead' },
	operations: [upsert, get, getMany],
};
