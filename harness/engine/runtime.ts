/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- tooling that runs in Node.js beside n8n, never inside it */
import 'reflect-metadata';

import { Logger } from '@n8n/backend-common';
import { GlobalConfig, InstanceSettingsConfig } from '@n8n/config';
import { Container } from '@n8n/di';
import { Expression, LoggerProxy } from 'n8n-workflow';

import { installProcessedData } from './processed-data';
import type { LogMetadata } from 'n8n-workflow';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';

export type CapturedLogLevel = 'error' | 'warn' | 'info' | 'debug';

export interface CapturedLog {
	level: CapturedLogLevel;
	message: string;
	metadata?: LogMetadata;
	/** Message plus the fully inspected metadata (errors with message, stack and cause), for leak checks. */
	text: string;
}

const captured: CapturedLog[] = [];

function record(level: CapturedLogLevel, message: string, metadata?: LogMetadata): void {
	const details =
		metadata === undefined ? '' : ` ${inspect(metadata, { depth: 8, breakLength: Infinity })}`;
	captured.push({ level, message, metadata, text: `${level}: ${message}${details}` });
}

/**
 * n8n-core reads its logger from the DI container (`this.logger` in node contexts, the request
 * helpers) while n8n-workflow and WorkflowExecute log through LoggerProxy: both must capture.
 * The class extends n8n's Logger because the container is typed with that class.
 */
class CapturingLogger extends Logger {
	constructor(globalConfig: GlobalConfig) {
		// isRoot false: the base constructor would otherwise install itself in LoggerProxy.
		super(globalConfig, Container.get(InstanceSettingsConfig), { isRoot: false });
	}

	override error(message: string, metadata?: LogMetadata): void {
		record('error', message, metadata);
	}

	override warn(message: string, metadata?: LogMetadata): void {
		record('warn', message, metadata);
	}

	override info(message: string, metadata?: LogMetadata): void {
		record('info', message, metadata);
	}

	override debug(message: string, metadata?: LogMetadata): void {
		record('debug', message, metadata);
	}

	override scoped(): Logger {
		return this;
	}
}

let userFolder: string | undefined;
let engineReady: Promise<void> | undefined;

function installProcessServices(): void {
	if (userFolder !== undefined) return;
	// InstanceSettings (created by every node context) writes `<folder>/.n8n/config` with a fresh
	// encryption key: keep it out of the developer's home. One folder per process, so suites that
	// skip shutdownEngine leave at most one behind per Jest worker.
	userFolder = join(tmpdir(), `n8n-harness-${process.pid}`);
	mkdirSync(userFolder, { recursive: true });
	process.env.N8N_USER_FOLDER = userFolder;

	const globalConfig = Container.get(GlobalConfig);
	// n8n's Logger turns every level above the configured one into a no-op on the instance, which
	// would shadow the overrides: at 'debug' none is disabled, so debug lines are captured too.
	globalConfig.logging.level = 'debug';
	const logger = new CapturingLogger(globalConfig);
	Container.set(Logger, logger);
	LoggerProxy.init(logger);
}

/**
 * One-time process setup, like n8n's start-up: logger, instance folder and the expression
 * engine. n8n 2.41 evaluates expressions in isolated-vm by default (N8N_EXPRESSION_ENGINE=vm);
 * n8n-workflow uses its legacy in-process evaluator until `initExpressionEngine` has run.
 */
export async function ensureEngine(): Promise<void> {
	installProcessServices();
	await installProcessedData();
	engineReady ??= startExpressionEngine();
	await engineReady;
}

async function startExpressionEngine(): Promise<void> {
	// Same options as n8n's BaseCommand passes at start-up.
	const config = Container.get(GlobalConfig).expressionEngine;
	if (config.engine === 'legacy') return;
	try {
		await Expression.initExpressionEngine({
			engine: config.engine,
			bridgeTimeout: config.bridgeTimeout,
			bridgeMemoryLimit: config.bridgeMemoryLimit,
			poolSize: config.poolSize,
			maxCodeCacheSize: config.maxCodeCacheSize,
			idleTimeoutMs: config.idleTimeout === undefined ? undefined : config.idleTimeout * 1000,
		});
	} catch (error) {
		// initExpressionEngine loads @n8n/expression-runtime with a dynamic import(), which Jest's
		// CommonJS sandbox refuses unless Node runs with --experimental-vm-modules.
		if ((error as { code?: string }).code !== 'ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG')
			throw error;
		// It recorded the engine before failing; without resetting, every expression would throw.
		Expression.setExpressionEngine('legacy');
		LoggerProxy.warn(
			'Harness: expressions use the legacy evaluator; run Jest with NODE_OPTIONS=--experimental-vm-modules for the isolated-vm engine',
		);
	}
}

/** 'vm' (isolated-vm, n8n 2.41's default), 'quickjs' or 'legacy' once `ensureEngine` has run. */
export function activeExpressionEngine(): 'legacy' | 'vm' | 'quickjs' {
	return Expression.getActiveImplementation();
}

/** Frees the isolate pool and removes the temporary n8n folder; call it in `afterAll`. */
export async function shutdownEngine(): Promise<void> {
	await Expression.disposeExpressionEngine();
	engineReady = undefined;
	if (userFolder !== undefined) rmSync(userFolder, { recursive: true, force: true });
}

export function capturedLogs(): readonly CapturedLog[] {
	return captured;
}

export function clearCapturedLogs(): void {
	captured.length = 0;
}
