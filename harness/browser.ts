/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * A real Chromium for the editor suite: Debian's `chromium` package (installed with apt-get when
 * missing, like the queue suite's PostgreSQL and Redis), driven by puppeteer-core. Packages that
 * download their own browser cannot reach their download hosts here, so the browser always
 * comes from the system.
 */
import { existsSync } from 'node:fs';

import type { Browser } from 'puppeteer-core';
import { launch } from 'puppeteer-core';

import { installDebianPackages } from './debian-packages';

/** Where Debian's and other distributions' packages put the browser; the first found is used. */
const CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

function installedChromium(): string | undefined {
	const fromEnv = process.env.CHROMIUM_PATH;
	if (fromEnv) {
		if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv} does not exist`);
		return fromEnv;
	}
	return CHROMIUM_PATHS.find((path) => existsSync(path));
}

/** The browser's path; installs Debian's chromium first when none is found (needs root, as in CI). */
export async function ensureChromium(): Promise<string> {
	const found = installedChromium();
	if (found) return found;
	await installDebianPackages(['chromium'], 'The editor suite', ' (or set CHROMIUM_PATH)');
	const installed = installedChromium();
	if (!installed)
		throw new Error(`apt-get installed chromium, but none of ${CHROMIUM_PATHS.join(', ')} exists`);
	return installed;
}

/**
 * A headless Chromium with a desktop-sized window. It trusts any certificate, since the n8n
 * under test serves https with a throwaway local CA; `--no-sandbox` because CI runs as root,
 * where Chromium refuses its own sandbox.
 */
export async function launchBrowser(): Promise<Browser> {
	return await launch({
		executablePath: await ensureChromium(),
		headless: true,
		acceptInsecureCerts: true,
		args: ['--no-sandbox', '--ignore-certificate-errors', '--window-size=1600,1000'],
		defaultViewport: { width: 1600, height: 1000 },
	});
}
