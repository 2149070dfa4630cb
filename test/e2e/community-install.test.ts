/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * The package as users install it: n8n's own community-package installer (Settings > Community
 * Nodes) fetching it from a registry, then updating it while a Svc Trigger is published, and
 * uninstalling it. The registry serves an earlier commit's build as version N and the build under
 * test as N+1; nothing of the project folder reaches n8n but those tarballs. This is the upgrade
 * test: a change to what the trigger stores must keep a published trigger receiving across an
 * update from what users have installed (harness/baseline-package.ts).
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { activate, deactivate, getWorkflow, importCredential } from '../../harness/n8n/api';
import {
	installCommunityPackage,
	listCommunityPackages,
	uninstallCommunityPackage,
	updateCommunityPackage,
} from '../../harness/n8n/community-packages';
import type { N8nInstance } from '../../harness/n8n/instance';
import { nodeOutput } from '../../harness/n8n/node-results';
import { startN8n } from '../../harness/n8n/process';
import { packageFolder } from '../../harness/n8n/user-folder';
import type { Environment } from '../../harness/environment';
import { sandboxCredential, startEnvironment } from '../../harness/environment';
import { IDENTITY_NODE, runIdentity } from '../../harness/identity-run';
import {
	importReceiverWorkflow,
	ranPastTrigger,
	SVC_TRIGGER_RECEIVER,
} from '../../harness/crash-receivers';
import type { LocalRegistry } from '../../harness/npm-registry';
import { startLocalRegistry } from '../../harness/npm-registry';
import { packedAtRevision } from '../../harness/baseline-package';
import { packedTarball } from '../../harness/pack';
import { PACKAGE_NAME, PACKAGE_NODE_TYPES } from '../../harness/project';
import { runtimeVersions } from '../../harness/runtime-versions';
import { until } from '../../harness/wait';
import { upsertLead } from '../../sandbox/operations';

jest.setTimeout(300_000);

describe.each(runtimeVersions('SVC_E2E_N8N'))(
	"n8n %s: installed, updated and uninstalled by n8n's community-package installer",
	(version) => {
		let registry: LocalRegistry;
		let env: Environment;
		let first: string;
		let firstIntegrity: string;
		let next: string;
		let receiverId: string;
		const subscriptions = () => [...env.sandbox.state.store.subscriptions.values()];
		const packageDir = () => packageFolder(env.n8n.userFolder);

		beforeAll(async () => {
			registry = await startLocalRegistry();
			const tarball = await packedTarball();
			// N: the build users may have installed (UPGRADE_BASELINE); N+1: the build under test.
			({ version: first, integrity: firstIntegrity } = await registry.publish(
				await packedAtRevision(),
			));
			next = (await registry.publish(tarball)).version;
			// An n8n of its own: the package comes through n8n's installer, which updates and removes it.
			// The service goes on retrying for longer than the sandbox's default 0.7 s: a delivery
			// that meets the update between n8n's removing and loading the node again is tried later.
			env = await startEnvironment({
				version,
				installFrom: { registry, version: first },
				delivery: { retryDelaysMs: [200, 500, 1_000, 2_000, 5_000] },
			});
		}, 15 * 60_000);
		afterAll(async () => {
			await env?.stop();
			await registry?.close();
		});

		/** Leads created one after the other, each waiting for its deliveries (retries included) to end. */
		async function leadsDeliveredOneByOne(
			prefix: string,
			keepGoing: (count: number) => boolean,
		): Promise<string[]> {
			const eventIds: string[] = [];
			while (keepGoing(eventIds.length)) {
				const { event } = upsertLead(env.sandbox.state, {
					email: `${prefix}.${eventIds.length}@example.com`,
				});
				eventIds.push(String(event?.id));
				await env.sandbox.state.waitForDeliveries();
			}
			return eventIds;
		}

		/** Waits until each event ran past the trigger, then says how often each did. */
		async function runsOf(eventIds: string[]): Promise<number[]> {
			await until(
				`${eventIds.length} events run past the trigger`,
				() => eventIds.every((id) => ranPastTrigger(env.sandbox.state).has(id)),
				{ timeoutMs: 60_000 },
			);
			const runs = ranPastTrigger(env.sandbox.state);
			return eventIds.map((id) => runs.get(id) ?? 0);
		}

		it('installs from the registry as Settings > Community Nodes does: listed with its version and its three nodes, an action runs with the credential', async () => {
			expect(env.installed).toMatchObject({ packageName: PACKAGE_NAME, installedVersion: first });
			expect(env.installed?.installedNodes.map((node) => node.type).sort()).toEqual(
				[...PACKAGE_NODE_TYPES].sort(),
			);
			expect(await listCommunityPackages(env.n8n)).toEqual([
				expect.objectContaining({ packageName: PACKAGE_NAME, installedVersion: first }),
			]);
			// The tarball came from the registry, not from the project folder.
			expect(registry.requests()).toContain(`/${PACKAGE_NAME}/-/${PACKAGE_NAME}-${first}.tgz`);
			// n8n strips the development-only dependency lists; with no runtime dependency, npm installed nothing.
			const manifest = JSON.parse(await readFile(join(packageDir(), 'package.json'), 'utf8')) as {
				version: string;
				peerDependencies?: unknown;
				devDependencies?: unknown;
				dependencies?: unknown;
			};
			expect(manifest).toMatchObject({ version: first });
			expect(manifest.peerDependencies).toBeUndefined();
			expect(manifest.devDependencies).toBeUndefined();
			expect(manifest.dependencies).toBeUndefined();
			expect(existsSync(join(packageDir(), 'node_modules'))).toBe(false);
			expect((await readdir(packageDir())).sort()).toEqual(
				expect.arrayContaining(['CHANGELOG.md', 'dist', 'package.json']),
			);

			const execution = await runIdentity(env.n8n, env.credential);
			expect(execution.status).toBe('success');
			expect(nodeOutput(execution, IDENTITY_NODE)[0].json).toMatchObject({
				key: { environment: 'test' },
			});
		});

		it('a published Svc Trigger keeps receiving across an update from N to N+1: every event runs once, one subscription, no restart', async () => {
			const receiver = await importReceiverWorkflow(
				env.n8n,
				'installer: Svc Trigger',
				SVC_TRIGGER_RECEIVER,
				{ sandboxUrl: env.sandbox.url, credential: env.credential },
			);
			receiverId = receiver.id;
			await activate(env.n8n, receiverId);
			expect(subscriptions()).toHaveLength(1);
			const [subscription] = subscriptions();
			const pid = env.n8n.pid;

			const before = await leadsDeliveredOneByOne('before-update', (count) => count < 3);
			let updating = true;
			const update = updateCommunityPackage(env.n8n, PACKAGE_NAME, next).finally(() => {
				updating = false;
			});
			// One lead after another for as long as the update runs (at least one).
			const during = await leadsDeliveredOneByOne(
				'during-update',
				(count) => count === 0 || updating,
			);
			expect(await update).toMatchObject({ packageName: PACKAGE_NAME, installedVersion: next });
			const after = await leadsDeliveredOneByOne('after-update', (count) => count < 3);

			const all = [...before, ...during, ...after];
			// Each event was acknowledged (2xx) by n8n, and ran past the trigger exactly once.
			for (const eventId of all) {
				expect(env.sandbox.state.deliveries.attempts({ eventId }).some((a) => a.ok)).toBe(true);
			}
			expect(await runsOf(all)).toEqual(all.map(() => 1));
			expect(subscriptions().map((candidate) => candidate.id)).toEqual([subscription.id]);
			expect(env.n8n.pid).toBe(pid);
			expect(await listCommunityPackages(env.n8n)).toEqual([
				expect.objectContaining({ packageName: PACKAGE_NAME, installedVersion: next }),
			]);
			expect(JSON.parse(await readFile(join(packageDir(), 'package.json'), 'utf8'))).toMatchObject({
				version: next,
			});
		});

		it('uninstall leaves the subscription at the service and n8n refuses its deliveries; reinstall and publish again end with one subscription that runs each event once', async () => {
			const [left] = subscriptions();
			await uninstallCommunityPackage(env.n8n, PACKAGE_NAME);
			expect(await listCommunityPackages(env.n8n)).toEqual([]);
			// n8n does not unpublish on uninstall: the workflow stays published and subscribed.
			expect((await getWorkflow(env.n8n, receiverId)).active).toBe(true);
			expect(subscriptions().map((candidate) => candidate.id)).toEqual([left.id]);
			const [refused] = await leadsDeliveredOneByOne('uninstalled', (count) => count < 1);
			const attempts = env.sandbox.state.deliveries.attempts({ eventId: refused });
			expect(attempts.length).toBeGreaterThan(0);
			expect(attempts.every((attempt) => !attempt.ok && (attempt.status ?? 0) >= 400)).toBe(true);
			expect(ranPastTrigger(env.sandbox.state).has(refused)).toBe(false);

			// As the README says: install again, then unpublish and publish the workflow.
			expect(await installCommunityPackage(env.n8n, PACKAGE_NAME, next)).toMatchObject({
				installedVersion: next,
			});
			await deactivate(env.n8n, receiverId);
			await activate(env.n8n, receiverId);
			expect(subscriptions()).toHaveLength(1);
			const again = await leadsDeliveredOneByOne('reinstalled', (count) => count < 2);
			expect(await runsOf(again)).toEqual([1, 1]);
			await deactivate(env.n8n, receiverId);
			await until('subscription deleted', () => subscriptions().length === 0, {
				timeoutMs: 15_000,
			});
		});

		/** An n8n started with the package list in its environment, as the README's third way shows. */
		async function startManagedByEnv(
			packages: Array<{ name: string; version: string; checksum?: string }>,
			extraEnv: Record<string, string> = {},
		): Promise<N8nInstance> {
			return await startN8n({
				runtime: env.n8n.runtime,
				tls: registry.ca,
				expectNodeTypes: [],
				env: {
					...registry.env(),
					N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV: 'true',
					N8N_COMMUNITY_PACKAGES: JSON.stringify(packages),
					...extraEnv,
				},
			});
		}

		// n8n 2.21 and newer only.
		if (version === 'v2') {
			it("installed from environment variables with the version's checksum: loaded on start, listed, an action runs, and the Community Nodes page read-only", async () => {
				const n8n = await startManagedByEnv([
					{ name: PACKAGE_NAME, version: first, checksum: firstIntegrity },
				]);
				try {
					expect(await listCommunityPackages(n8n)).toEqual([
						expect.objectContaining({ packageName: PACKAGE_NAME, installedVersion: first }),
					]);
					for (const type of PACKAGE_NODE_TYPES) {
						const described = await n8n.rest('POST', '/node-types', {
							nodeInfos: [{ name: type }],
						});
						expect(described.status).toBe(200);
					}
					const credential = await importCredential(
						n8n,
						sandboxCredential(n8n.runtime.version, env.sandbox.url),
					);
					expect((await runIdentity(n8n, credential)).status).toBe('success');
					const change = await n8n.rest('POST', '/community-packages', {
						name: PACKAGE_NAME,
						version: next,
					});
					expect(change.status).toBe(400);
					expect(JSON.stringify(change.body)).toContain('managed via environment variables');
				} finally {
					await n8n.stop();
				}
			});

			it('a wrong checksum: n8n starts without the package and logs why; no checksum with unverified packages off: n8n does not start', async () => {
				const n8n = await startManagedByEnv([
					{ name: PACKAGE_NAME, version: first, checksum: `sha512-${'A'.repeat(86)}==` },
				]);
				try {
					expect(await listCommunityPackages(n8n)).toEqual([]);
					// n8n's words: its mismatch message is replaced by this one on the way out (npm-utils verifyIntegrity).
					expect(await n8n.log()).toContain(
						`Failed to install community package '${PACKAGE_NAME}@${first}' from env: Failed to verify package checksum`,
					);
				} finally {
					await n8n.stop();
				}
				await expect(
					startManagedByEnv([{ name: PACKAGE_NAME, version: first }], {
						N8N_UNVERIFIED_PACKAGES_ENABLED: 'false',
					}),
				).rejects.toThrow(
					`no checksum available for '${PACKAGE_NAME}@${first}' and unverified packages are disabled`,
				);
			});
		}
	},
);
