/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** Where things are in this project, for the tools and tests. */
import { join } from 'node:path';

export const PROJECT_DIR = join(__dirname, '..');
export const EXAMPLES_DIR = join(PROJECT_DIR, 'examples');
/** Scratch output (packs, logs, reports, screenshots): git-ignored. */
export const TMP_DIR = join(PROJECT_DIR, '.tmp');

export const PACKAGE_NAME = 'n8n-nodes-svc';
/** The node types this package registers, as n8n names them. */
export const SVC_NODE_TYPE = `${PACKAGE_NAME}.svc`;
export const SVC_TRIGGER_TYPE = `${PACKAGE_NAME}.svcTrigger`;
export const SVC_PULL_TRIGGER_TYPE = `${PACKAGE_NAME}.svcPullTrigger`;
export const PACKAGE_NODE_TYPES = [SVC_NODE_TYPE, SVC_TRIGGER_TYPE, SVC_PULL_TRIGGER_TYPE];
