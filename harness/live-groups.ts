/* eslint-disable @n8n/community-nodes/no-restricted-globals -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * The process groups this process started and has not stopped yet, killed when it exits or gets
 * SIGINT, SIGTERM or SIGHUP, so nothing outlives the run that started it.
 */
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
 * Installed by the first addLiveGroup, not on import: a tool that only runs commands keeps its
 * signals as they are.
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

export function addLiveGroup(pgid: number): void {
	killGroupsOnExit();
	liveGroups.add(pgid);
}

/** Once the whole group is gone. */
export function removeLiveGroup(pgid: number): void {
	liveGroups.delete(pgid);
}
