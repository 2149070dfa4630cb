/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** Debian packages the suites and tools run (PostgreSQL, Redis, nginx, Chromium), installed with apt-get when missing. */
import { userInfo } from 'node:os';

import { runCommand } from './commands';

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
	// Another suite's worker may be installing at the same moment: wait for dpkg's lock.
	const waitForLock = ['-o', 'DPkg::Lock::Timeout=600'];
	for (const args of [
		[...waitForLock, 'update', '-qq'],
		[...waitForLock, 'install', '-y', '-qq', '--no-install-recommends', ...packages],
	]) {
		const result = await runCommand('apt-get', args, { env, timeoutMs: 15 * 60_000 });
		if (result.code !== 0)
			throw new Error(
				`apt-get ${args.join(' ')} failed (${result.code}): ${result.stderr.slice(-1500)}`,
			);
	}
}
