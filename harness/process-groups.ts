/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * Long-running servers (n8n, PostgreSQL, Redis, nginx) in their own process groups, so stopping
 * one reaches everything it spawned; live-groups.ts kills what is left when this process ends.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

import { addLiveGroup, removeLiveGroup } from './live-groups';
import { logTail } from './log-tail';
import { poll, sleep } from './wait';

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

function groupAlive(pgid: number): boolean {
	try {
		process.kill(-pgid, 0);
		return true;
	} catch {
		return false;
	}
}

/** Starts a long-running command in its own process group, stdout and stderr appended to `logFile`. */
export function spawnGroup(
	cmd: string,
	args: string[],
	options: { cwd?: string; env: NodeJS.ProcessEnv; logFile: string },
): ProcessGroup {
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
	addLiveGroup(pid);
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
		removeLiveGroup(pid);
	};
	return {
		pid,
		logFile: options.logFile,
		exited: () => exited,
		stop: async (graceMs = 10_000) => await end(graceMs),
		kill: async () => await end(0),
	};
}
