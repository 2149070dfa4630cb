export type { DeliveryAttempt } from './deliveries';
export type { FaultRule } from './faults';
export type { SandboxKey } from './keys';
export { DEMO_KEYS } from './keys';
export type { Sandbox } from './server';
export { startSandbox } from './server';
export type { SandboxOptions } from './state';
export { SandboxState } from './state';
export type { RecordedRequest, SandboxStats } from './telemetry';
