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

export const sleep = async (ms: number): Promise<void> => await new Promise((done) => setTimeout(done, ms));

export interface CommandResult {
	code: number;
	stdout: string;
	stderr: string;
}

export async function runCommand(cmd: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CommandResult> {
	return await new Promise((resolvePromise, reject) => {
		const child = spawn(cmd, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
		child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		const timer = options.timeoutMs
			? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs)
			: undefined;
		child.on('error', reject);
		child.on('close', (code, signal) => {
			if (timer) clearTimeout(timer);
			// Shell convention for a signal death (137 = SIGKILL, e.g. the timeout above).
			resolvePromise({ code: code ?? 128 + (signal ? osConstants.signals[signal] : 0), stdout, stderr: signal ? `${stderr}\n[killed by ${signal}]` : stderr });
		});
	});
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
	const text = (await readFile(logFile, 'utf8').catch(() => '')).trimEnd();
	return text ? text.split('\n').slice(-lines).join('\n') : '(empty)';
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
process.on('exit', killLiveGroups);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
	process.once(signal, () => {
		killLiveGroups();
		// With no other listener, end as the signal would have without ours.
		if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
	});
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

/** Starts a long-running command in its own process group, stdout and stderr appended to `logFile`. */
export function spawnGroup(cmd: string, args: string[], options: { cwd?: string; env: NodeJS.ProcessEnv; logFile: string }): ProcessGroup {
	const logFd = openSync(options.logFile, 'a');
	const child = spawn(cmd, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', logFd, logFd] });
	closeSync(logFd);
	const pid = child.pid;
	if (pid === undefined) throw new Error(`Could not spawn ${cmd} ${args.join(' ')}`);
	liveGroups.add(pid);
	let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
	const exitPromise = new Promise<void>((done) => child.on('exit', (code, signal) => {
		exited = { code, signal };
		done();
	}));
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
