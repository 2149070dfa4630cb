/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** Debian packages the suites and tools run (PostgreSQL, Redis, nginx, Chromium), installed with apt-get when missing. */
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

import { runCommand } from './commands';

const APT_LOCK = join(tmpdir(), 'n8n-nodes-svc-apt.lock');

/**
 * Installs `packages` (needs root, as in CI); elsewhere throws saying what `user` needs and the
 * command to run, plus `alternative` when there is another way.
 */
export async function installDebianPackages(
	packages: string[],
	user: string,
	alternative = '',
): Promise<void> {
	if (userInfo().uid !== 0)
		throw new Error(
			`${user} needs Debian's ${packages.join(' and ')}: run \`sudo apt-get install -y ${packages.join(' ')}\`${alternative}`,
		);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	// Another jest worker may install at the same moment (both majors' queue files start at once
	// on a fresh machine), and apt-get update does not wait for the lists lock the other holds:
	// one apt-get at a time, through util-linux's flock on a lock file of our own.
	for (const args of [
		['update', '-qq'],
		['install', '-y', '-qq', '--no-install-recommends', ...packages],
	]) {
		const result = await runCommand('flock', ['-w', '900', APT_LOCK, 'apt-get', ...args], {
			env,
			timeoutMs: 16 * 60_000,
		});
		if (result.code !== 0)
			throw new Error(
				`apt-get ${args.join(' ')} failed (${result.code}): ${result.stderr.slice(-1500)}`,
			);
	}
}
