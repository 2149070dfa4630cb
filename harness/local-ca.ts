/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** A throwaway local certificate authority, so n8n and the sandbox serve HTTPS on loopback. */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { runCommand } from './commands';

export interface LocalCa {
	caCertPath: string;
	caKeyPath: string;
	/** Server certificate for DNS:localhost and IP:127.0.0.1, signed by the CA. */
	certPath: string;
	keyPath: string;
	caPem: string;
}

/** A new P-256 key, unencrypted: generated in milliseconds. */
const NEW_EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

async function openssl(args: string[], cwd: string): Promise<void> {
	const result = await runCommand('openssl', args, { cwd });
	if (result.code !== 0) throw new Error(`openssl ${args[0]} failed: ${result.stderr.trim()}`);
}

/** Creates a throwaway CA and a localhost server certificate in `dir` (EC keys: generated in milliseconds). */
export async function makeLocalCa(dir: string): Promise<LocalCa> {
	await mkdir(dir, { recursive: true });
	const files = {
		caCertPath: join(dir, 'ca.crt'),
		caKeyPath: join(dir, 'ca.key'),
		certPath: join(dir, 'server.crt'),
		keyPath: join(dir, 'server.key'),
	};
	await openssl(
		[
			'req',
			'-x509',
			...NEW_EC_KEY,
			'-keyout',
			files.caKeyPath,
			'-out',
			files.caCertPath,
			'-days',
			'3650',
			'-subj',
			'/CN=n8n-nodes-svc local test CA',
			'-addext',
			'basicConstraints=critical,CA:TRUE',
			'-addext',
			'keyUsage=critical,keyCertSign,cRLSign',
		],
		dir,
	);
	await issueCertificate(
		{ caCertPath: files.caCertPath, caKeyPath: files.caKeyPath },
		{ certPath: files.certPath, keyPath: files.keyPath },
		['localhost'],
	);
	return { ...files, caPem: await readFile(files.caCertPath, 'utf8') };
}

/** A server certificate for `dnsNames` and IP:127.0.0.1, signed by the CA, written to `out`. */
export async function issueCertificate(
	ca: Pick<LocalCa, 'caCertPath' | 'caKeyPath'>,
	out: Pick<LocalCa, 'certPath' | 'keyPath'>,
	dnsNames: string[],
): Promise<void> {
	const dir = dirname(out.certPath);
	const csr = `${out.certPath}.csr`;
	await openssl(
		['req', ...NEW_EC_KEY, '-keyout', out.keyPath, '-out', csr, '-subj', `/CN=${dnsNames[0]}`],
		dir,
	);
	const ext = `${out.certPath}.ext`;
	await writeFile(
		ext,
		[
			`subjectAltName=${[...dnsNames.map((name) => `DNS:${name}`), 'IP:127.0.0.1'].join(',')}`,
			'basicConstraints=CA:FALSE',
			'keyUsage=critical,digitalSignature,keyEncipherment',
			'extendedKeyUsage=serverAuth',
			'',
		].join('\n'),
	);
	await openssl(
		[
			'x509',
			'-req',
			'-in',
			csr,
			'-CA',
			ca.caCertPath,
			'-CAkey',
			ca.caKeyPath,
			'-CAcreateserial',
			'-out',
			out.certPath,
			'-days',
			'825',
			'-sha256',
			'-extfile',
			ext,
		],
		dir,
	);
}

/** The CA already in `dir` (made by makeLocalCa), or a new one: a restart keeps the certificate clients trust. */
export async function localCaIn(dir: string): Promise<LocalCa> {
	const files = {
		caCertPath: join(dir, 'ca.crt'),
		caKeyPath: join(dir, 'ca.key'),
		certPath: join(dir, 'server.crt'),
		keyPath: join(dir, 'server.key'),
	};
	if (!Object.values(files).every((path) => existsSync(path))) return await makeLocalCa(dir);
	return { ...files, caPem: await readFile(files.caCertPath, 'utf8') };
}
