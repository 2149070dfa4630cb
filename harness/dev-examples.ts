/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
import { readdirSync } from 'node:fs';
import { EXAMPLES_DIR } from './project';

/**
 * Examples that need queue mode's backing services: the exactly-once example claims event ids in
 * PostgreSQL, and only `npm run dev -- --queue` starts one and creates its "Events database"
 * credential. Imported without it, its Postgres node would have no credential.
 */
const QUEUE_ONLY_EXAMPLES = new Set(['exactly-once-with-postgres.json']);

/** The example workflow files (names in examples/, sorted) that `npm run dev` imports. */
export function devExamples(queueMode: boolean): string[] {
	return readdirSync(EXAMPLES_DIR)
		.filter((name) => name.endsWith('.json') && (queueMode || !QUEUE_ONLY_EXAMPLES.has(name)))
		.sort();
}
