/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- tooling that runs in Node.js beside n8n, never inside it */
/** One-shot commands: run to the end, their output collected, killed after a timeout if given. */
import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';

import { lastLines } from './log-tail';

/** npm's command: on Windows a .cmd that spawn needs by its full name. */
export const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

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

/** `runCommand`, failing unless it exits 0: the error names `what` and shows the output's last 30 lines. */
export async function runChecked(
	what: string,
	cmd: string,
	args: string[],
	options: CommandOptions = {},
): Promise<CommandResult> {
	const result = await runCommand(cmd, args, options);
	if (result.code !== 0)
		throw new Error(`${what} failed (exit ${result.code}):\n${lastLines(result.output, 30)}`);
	return result;
}
