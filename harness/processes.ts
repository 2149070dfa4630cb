/**
 * Child processes for the tools and e2e suites: one-shot commands, and long-running servers
 * (n8n, PostgreSQL, Redis) in their own process groups, so stopping one reaches everything it
 * spawned and nothing outlives the run that started it.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { constants as osConstants } from 'node:os';
import { poll, sleep } from './wait';

export interface CommandResult {
	code: number;
	stdout: string;
	stderr: string;
	/** stdout and stderr interleaved as they arrived. */
	output: string;
}

export interface CommandOptions {
	cwd?: string;
	env?: NodeJS.ProcessEnv;
	/** SIGKILL after this long (the result then says so). */
	timeoutMs?: number;
	/** Also append the command line and its output here as they come. */
	log?: NodeJS.WritableStream;
	/** Let the child write to this process's stdout and stderr directly (nothing is collected). */
	inherit?: boolean;
}

export async function runCommand(
	cmd: string,
	args: string[],
	options: CommandOptions = {},
): Promise<CommandResult> {
	options.log?.write(`\n$ (cd ${options.cwd ?? process.cwd()} && ${cmd} ${args.join(' ')})\n`);
	return await new Promise((resolvePromise, reject) => {
		const child = spawn(cmd, args, {
			cwd: options.cwd,
			env: options.env ?? process.env,
			stdio: options.inherit ? ['ignore', 'inherit', 'inherit'] : ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		let output = '';
		const collect = (onto: (text: string) => void) => (chunk: Buffer) => {
			const text = chunk.toString();
			onto(text);
			output += text;
			options.log?.write(chunk);
		};
		child.stdout?.on(
			'data',
			collect((text) => (stdout += text)),
		);
		child.stderr?.on(
			'data',
			collect((text) => (stderr += text)),
		);
		const timer = options.timeoutMs
			? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs)
			: undefined;
		child.on('error', reject);
		child.on('close', (code, signal) => {
			if (timer) clearTimeout(timer);
			// Shell convention for a signal death (137 = SIGKILL, e.g. the timeout above).
			resolvePromise({
				code: code ?? 128 + (signal ? osConstants.signals[signal] : 0),
				stdout,
				stderr: signal ? `${stderr}\n[killed by ${signal}]` : stderr,
				output,
			});
		});
	});
}

/**
 * Environment for a child: this process's, without the variables `drop` matches, plus `extra`.
 * By default it drops what `npm run` exports about the outer project (npm_config_*, INIT_CWD),
 * which an inner npm would take as its own configuration, and NODE_OPTIONS (a runner's loaders).
 */
export function childEnv(
	extra: Record<string, string> = {},
	drop = /^(npm_|INIT_CWD$|NODE_OPTIONS$)/i,
): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!drop.test(key)) env[key] = value;
	}
	return { ...env, ...extra };
}

/** The last `count` lines of `text`, without trailing blank lines. */
export function lastLines(text: string, count: number): string {
	return text.trimEnd().split('\n').slice(-count).join('\n');
}

export async function freePort(): Promise<number> {
	return await new Promise((resolvePromise, reject) => {
		const server = createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => resolvePromise(port));
		});
	});
}

export async function logTail(logFile: string, lines = 40): Promise<string> {
	const text = lastLines(await readFile(logFile, 'utf8').catch(() => ''), lines);
	return text || '(empty)';
}

/** Process groups not stopped yet: killed when this process exits or is interrupted. */
const liveGroups = new Set<number>();
function killLiveGroups(): void {
	for (const pgid of liveGroups) {
		try {
			process.kill(-pgid, 'SIGKILL');
		} catch {
			// Already gone.
		}
	}
}

let killingOnExit = false;
/**
 * Kills the live groups when this process exits or gets SIGINT, SIGTERM or SIGHUP. Installed by
 * the first spawnGroup, not on import: a tool that only runs commands keeps its signals as they are.
 */
function killGroupsOnExit(): void {
	if (killingOnExit) return;
	killingOnExit = true;
	process.on('exit', killLiveGroups);
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.once(signal, () => {
			killLiveGroups();
			// With no other listener, end as the signal would have without ours.
			if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
		});
	}
}

function groupAlive(pgid: number): boolean {
	try {
		process.kill(-pgid, 0);
		return true;
	} catch {
		return false;
	}
}

export interface ProcessGroup {
	pid: number;
	logFile: string;
	/** Set once the leader exited. */
	exited(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
	/** SIGTERM to the group, SIGKILL after `graceMs`; resolves when the whole group is gone. */
	stop(graceMs?: number): Promise<void>;
	/** SIGKILL to the group at once, as a crash or an OOM kill would end it. */
	kill(): Promise<void>;
}

export interface ReadyOptions {
	timeoutMs: number;
	/** Between two checks (default 150 ms). */
	everyMs?: number;
	/** The log whose last lines explain a failure (default the group's own). */
	logFile?: string;
}

/**
 * Checks `ready` until it holds, for a process group just started. Throws, with the last lines of
 * its log, once the group exits or `timeoutMs` passes; a check that throws counts as not ready.
 */
export async function untilGroupReady(
	what: string,
	group: ProcessGroup,
	ready: () => Promise<boolean>,
	options: ReadyOptions,
): Promise<void> {
	const failure = async (why: string): Promise<Error> => {
		const logFile = options.logFile ?? group.logFile;
		return new Error(`${what} ${why}\n--- last lines of ${logFile} ---\n${await logTail(logFile)}`);
	};
	await poll(
		async () => {
			if (!group.exited() && (await ready().catch(() => false))) return true;
			const exited = group.exited();
			if (exited)
				throw await failure(
					`exited during start-up (code ${exited.code}, signal ${exited.signal})`,
				);
			return undefined;
		},
		{
			timeoutMs: options.timeoutMs,
			everyMs: options.everyMs ?? 150,
			timedOut: async () => {
				throw await failure(`was not ready within ${options.timeoutMs} ms`);
			},
		},
	);
}

/** Starts a long-running command in its own process group, stdout and stderr appended to `logFile`. */
export function spawnGroup(
	cmd: string,
	args: string[],
	options: { cwd?: string; env: NodeJS.ProcessEnv; logFile: string },
): ProcessGroup {
	killGroupsOnExit();
	const logFd = openSync(options.logFile, 'a');
	const child = spawn(cmd, args, {
		cwd: options.cwd,
		env: options.env,
		detached: true,
		stdio: ['ignore', logFd, logFd],
	});
	closeSync(logFd);
	const pid = child.pid;
	if (pid === undefined) throw new Error(`Could not spawn ${cmd} ${args.join(' ')}`);
	liveGroups.add(pid);
	let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
	const exitPromise = new Promise<void>((done) =>
		child.on('exit', (code, signal) => {
			exited = { code, signal };
			done();
		}),
	);
	const end = async (graceMs: number): Promise<void> => {
		if (groupAlive(pid)) {
			process.kill(-pid, graceMs > 0 ? 'SIGTERM' : 'SIGKILL');
			const deadline = Date.now() + graceMs;
			while (groupAlive(pid) && Date.now() < deadline) await sleep(100);
			if (groupAlive(pid)) process.kill(-pid, 'SIGKILL');
			while (groupAlive(pid)) await sleep(50);
		}
		await exitPromise;
		liveGroups.delete(pid);
	};
	return {
		pid,
		logFile: options.logFile,
		exited: () => exited,
		stop: async (graceMs = 10_000) => await end(graceMs),
		kill: async () => await end(0),
	};
}
