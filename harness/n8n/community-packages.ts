/**
 * n8n's community-package installer as Settings > Community Nodes drives it: the editor's REST
 * calls to install, list, update and uninstall.
 */
import { restData } from './api';
import type { N8nInstance } from './instance';

/**
 * n8n answers an install or update once its npm install has ended and the nodes are loaded: on a
 * loaded 2-core machine that took longer than the 30 s other calls get (queue suite, CI, 2.41).
 */
const INSTALL_TIMEOUT_MS = 180_000;

export interface InstalledPackage {
	packageName: string;
	installedVersion: string;
	installedNodes: Array<{ name: string; type: string; latestVersion: number }>;
}

/** Settings > Community Nodes > Install: `name` at `version`. */
export async function installCommunityPackage(
	n8n: N8nInstance,
	name: string,
	version: string,
): Promise<InstalledPackage> {
	return await restData<InstalledPackage>(
		n8n,
		'POST',
		'/community-packages',
		{ name, version },
		{ timeoutMs: INSTALL_TIMEOUT_MS },
	);
}

/** The Update button: `name` to `version`. */
export async function updateCommunityPackage(
	n8n: N8nInstance,
	name: string,
	version: string,
): Promise<InstalledPackage> {
	return await restData<InstalledPackage>(
		n8n,
		'PATCH',
		'/community-packages',
		{ name, version },
		{ timeoutMs: INSTALL_TIMEOUT_MS },
	);
}

/** The Uninstall button. */
export async function uninstallCommunityPackage(n8n: N8nInstance, name: string): Promise<void> {
	await restData(n8n, 'DELETE', `/community-packages?name=${encodeURIComponent(name)}`);
}

/** What Settings > Community Nodes lists. */
export async function listCommunityPackages(n8n: N8nInstance): Promise<InstalledPackage[]> {
	return await restData<InstalledPackage[]>(n8n, 'GET', '/community-packages');
}
