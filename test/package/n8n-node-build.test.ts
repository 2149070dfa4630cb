/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * n8n's reviewers build a community package with `npx n8n-node build`; we build it with
 * `npm run build`. Both run on a copy of the work tree, so the project's own dist is never
 * touched while other suites use it, and the two tarballs must hold the same files.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChecked } from '../../harness/commands';
import { packedFileList } from '../../harness/pack';
import { PROJECT_DIR } from '../../harness/project';
import { copyWorkTree } from '../../harness/work-tree';

const BUILD_TIMEOUT_MS = 240_000;

describe("the package n8n's own build makes", () => {
	let dir: string;
	beforeAll(async () => {
		dir = await mkdtemp(join(tmpdir(), 'svc-build-'));
		expect(await copyWorkTree(PROJECT_DIR, dir)).toBeGreaterThan(0);
		await symlink(join(PROJECT_DIR, 'node_modules'), join(dir, 'node_modules'), 'dir');
	});
	afterAll(() => rm(dir, { recursive: true, force: true }));

	it(
		'npx n8n-node build and npm run build pack the same files: compiled nodes, icons and codex, no docs images',
		async () => {
			await runChecked('npm run build', 'npm', ['run', 'build', '--silent'], { cwd: dir });
			const ours = await packedFileList(dir);

			await runChecked('npx n8n-node build', 'npx', ['--no-install', 'n8n-node', 'build'], {
				cwd: dir,
			});
			const theirs = await packedFileList(dir);
			// n8n-node copies every png and svg in the tree into dist, the README's screenshots too;
			// package.json's `files` is what keeps them out of the tarball.
			expect(existsSync(join(dir, 'dist', 'docs', 'images'))).toBe(true);

			expect(theirs).toEqual(ours);
			expect(ours).toEqual(
				expect.arrayContaining([
					'dist/credentials/SvcApi.credentials.js',
					'dist/nodes/Svc/Svc.node.js',
					'dist/nodes/Svc/Svc.node.json',
					'dist/nodes/Svc/SvcTrigger.node.js',
					'dist/nodes/Svc/SvcTrigger.node.json',
					'dist/nodes/Svc/svc.svg',
					'dist/nodes/Svc/svc.dark.svg',
					'dist/nodes/Svc/svc-pull.svg',
					'dist/nodes/Svc/svc-pull.dark.svg',
					'package.json',
					'README.md',
					'LICENSE',
					'CHANGELOG.md',
				]),
			);
			expect(
				ours.filter(
					(path) => !path.startsWith('dist/nodes/') && !path.startsWith('dist/credentials/'),
				),
			).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json']);
		},
		BUILD_TIMEOUT_MS,
	);
});
