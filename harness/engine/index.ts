/**
 * In-process n8n engine for tests: nodes run inside n8n-core 2.41's real WorkflowExecute, request
 * helpers, HookContext and WebhookContext; only persistence, the HTTP server and the task runner
 * are left out. Call `shutdownEngine()` in `afterAll`.
 */
export { runWorkflow, outputOf, errorOf } from './run-workflow';
export type { RunWorkflowOptions } from './run-workflow';
export { runCredentialTest } from './credential-test';
export type { CredentialTestOptions } from './credential-test';
export { createTriggerHarness } from './trigger';
export type { PublishedTrigger } from './published-trigger';
export { createPollHarness } from './poller';
export type { PollHarness, PollHarnessOptions, PollResult } from './poller';
export type { DeliveryResult, TriggerHarness, TriggerHarnessOptions } from './trigger';
export type { Delivery, RecordedResponse } from './webhook-http';
export { START_NODE_TYPE, aiToolNodeType, startNode, chain } from './node-types';
export type { NodeTypeMap } from './node-types';
export { activeExpressionEngine, capturedLogs, clearCapturedLogs, shutdownEngine } from './runtime';
export type { CapturedLog, CapturedLogLevel } from './runtime';
