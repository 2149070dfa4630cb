/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** The example workflows as shipped, their "Svc sandbox" credential pointed at a test's own. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { CredentialRef, WorkflowInput } from './n8n/api';
import { EXAMPLES_DIR } from './project';

/** The id the example workflows use for their credential. */
export const SANDBOX_CREDENTIAL_ID = 'svcSandbox';

/**
 * The workflow with every reference to the example credential id (`svcSandbox`) pointed at
 * `credential`: the same workflow on 2.x, the id n8n made on 1.x.
 */
export function withCredential(
	workflow: WorkflowInput,
	credential: CredentialRef,
	exampleId = SANDBOX_CREDENTIAL_ID,
): WorkflowInput {
	return {
		...workflow,
		nodes: workflow.nodes.map((node) => {
			if (!node.credentials) return node;
			const credentials = Object.fromEntries(
				Object.entries(node.credentials).map(([type, ref]) => [
					type,
					ref.id === exampleId ? { id: credential.id, name: credential.name } : ref,
				]),
			);
			return { ...node, credentials };
		}),
	};
}

/** An example workflow as shipped, its credential references pointed at `credential`. */
export function loadExample(file: string, credential: CredentialRef): WorkflowInput {
	const workflow = JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as WorkflowInput;
	return withCredential(workflow, credential);
}
