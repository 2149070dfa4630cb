import type { Resource } from '../types';
import { get } from './get';
import { getAll } from './getAll';
import { upsert } from './upsert';

export const lead: Resource = {
	option: { name: 'Lead', value: 'lead' },
	operations: [upsert, get, getAll],
};
