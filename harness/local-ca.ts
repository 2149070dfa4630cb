/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** A throwaway local certificate authority, so n8n and the sandbox serve HTTPS on loopback. */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from './commands';

export interface LocalCa {
	caCertPath: string;
	caKeyPath: string;
	/** Server certificate for DNS:localhost and IP:127.0.0.1, signed by the CA. */
	certPath: string;
	keyPath: string;
	caPem: string;
}

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
	const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
	await openssl(
		[
			'req',
			'-x509',
			...ec,
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
	const csr = join(dir, 'server.csr');
	await openssl(
		['req', ...ec, '-keyout', files.keyPath, '-out', csr, '-subj', '/CN=localhost'],
		dir,
	);
	const ext = join(dir, 'server.ext');
	await writeFile(
		ext,
		[
			'subjectAltName=DNS:localhost,IP:127.0.0.1',
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
			files.caCertPath,
			'-CAkey',
			files.caKeyPath,
			'-CAcreateserial',
			'-out',
			files.certPath,
			'-days',
			'825',
			'-sha256',
			'-extfile',
			ext,
		],
		dir,
	);
	return { ...files, caPem: await readFile(files.caCertPath, 'utf8') };
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
