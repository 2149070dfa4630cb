/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * A real Chromium for the editor suite: Debian's `chromium` package (installed with apt-get when
 * missing, like the queue suite's PostgreSQL and Redis), driven by puppeteer-core. Packages that
 * download their own browser cannot reach their download hosts here, so the browser always
 * comes from the system.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

import type { Browser } from 'puppeteer-core';
import { launch } from 'puppeteer-core';

import { installDebianPackages } from './debian-packages';
import type { LocalCa } from './local-ca';

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

/** Chromium's pin for a certificate: the base64 SHA-256 of its SubjectPublicKeyInfo. */
function spkiPin(certPem: string): string {
	const spki = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
	return createHash('sha256').update(spki).digest('base64');
}

/**
 * A headless Chromium with a desktop-sized window that trusts `tls`, the throwaway local CA of the
 * n8n under test, and no other unknown certificate. Pinning its keys
 * (`--ignore-certificate-errors-spki-list`, honoured with puppeteer's own user-data folder) makes
 * the connection valid to Chromium. With certificate errors merely ignored, Chromium still served
 * a script from its HTTP cache but each page load was slower (a 3 MB script's page reloaded in
 * 140–170 ms instead of 30–70 ms; the editor suite took 240 s instead of 216 s).
 * `--no-sandbox` because CI runs as root, where Chromium refuses its own sandbox.
 */
export async function launchBrowser(tls: LocalCa): Promise<Browser> {
	const pins = [tls.caPem, await readFile(tls.certPath, 'utf8')].map(spkiPin);
	return await launch({
		executablePath: await ensureChromium(),
		headless: true,
		args: [
			'--no-sandbox',
			`--ignore-certificate-errors-spki-list=${pins.join(',')}`,
			'--window-size=1600,1000',
		],
		defaultViewport: { width: 1600, height: 1000 },
	});
}
