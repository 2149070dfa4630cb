/** One step of a runtime install: a command whose output goes to the install log. */
import { runCommand } from '../commands';
import { lastLines } from '../log-tail';

export interface Step {
	log: NodeJS.WritableStream;
	logPath: string;
	/** Progress output (silent when not verbose). */
	progress: (text: string) => void;
}

/** Runs one command, appending its output to the install log; throws with the log's tail on failure. */
export async function run(
	step: Step,
	title: string,
	cmd: string,
	args: string[],
	cwd: string,
	env: NodeJS.ProcessEnv,
): Promise<string> {
	const started = Date.now();
	step.progress(`  ${title} ... `);
	const { code, output } = await runCommand(cmd, args, { cwd, env, log: step.log });
	const seconds = ((Date.now() - started) / 1000).toFixed(1);
	if (code !== 0) {
		step.progress(`FAILED after ${seconds} s\n`);
		throw new Error(
			`${title} failed (exit ${code}). Last lines of ${step.logPath}:\n${lastLines(output, 30)}`,
		);
	}
	step.progress(`${seconds} s\n`);
	return output;
}
