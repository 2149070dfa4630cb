import { returnAllAndLimit } from '../parameters';
import { readList } from '../requests';
import { TOOL_LIMIT_TEXT } from '../tool';
import type { Operation } from '../types';

export const getAll: Operation = {
	option: {
		name: 'Get Many',
		value: 'getAll',
		action: 'Get many campaigns',
		description: 'List campaigns',
	},
	toolDescription: `List the campaigns in Svc. ${TOOL_LIMIT_TEXT} Returns campaigns, each with id, name, status and updated_at.`,
	properties: returnAllAndLimit,
	async execute(op) {
		return await readList(op, 'listCampaigns');
	},
};
