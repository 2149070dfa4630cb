/* eslint-disable @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * The public npm registry as an n8n started with `env()` sees it: a proxy on loopback that stands
 * in for https://registry.npmjs.org and serves only the tarballs published to it here (the
 * packument, each version's manifest with its `dist`, the tarball), which is all n8n's
 * community-package installer asks of a registry. It refuses every other host, so nothing leaves
 * the machine. n8n keeps its default registry: no licence feature, no setting a user would not
 * have; HTTPS_PROXY is the one difference, and n8n and its npm both honour it.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChecked } from './commands';
import type { LocalCa } from './local-ca';
import { issueCertificate, makeLocalCa } from './local-ca';

/** The registry n8n's installer uses unless told otherwise. */
export const PUBLIC_REGISTRY_HOST = 'registry.npmjs.org';
const PUBLIC_REGISTRY = `https://${PUBLIC_REGISTRY_HOST}`;

interface PackageManifest {
	name: string;
	version: string;
	[field: string]: unknown;
}

interface Published {
	manifest: PackageManifest;
	tarball: Buffer;
	integrity: string;
	shasum: string;
}

export interface LocalRegistry {
	/** The proxy, e.g. http://127.0.0.1:41234. */
	proxyUrl: string;
	/** The CA that signed its certificate for registry.npmjs.org: the n8n it serves must trust it. */
	ca: LocalCa;
	/** Environment for n8n (and the npm it runs): the proxy, loopback not through it, the CA. */
	env(): Record<string, string>;
	/** Publishes a packed tarball under the name and version its package.json says; the newest publish is `latest`. */
	publish(tarballPath: string): Promise<{ name: string; version: string; integrity: string }>;
	/** Paths requested so far, oldest first. */
	requests(): string[];
	close(): Promise<void>;
}

/** The package.json inside an `npm pack` tarball. */
async function manifestOf(tarballPath: string): Promise<PackageManifest> {
	const read = await runChecked('tar (package.json)', 'tar', [
		'-xzOf',
		tarballPath,
		'package/package.json',
	]);
	return JSON.parse(read.stdout) as PackageManifest;
}

/** A copy of a packed tarball whose package.json says `version`, written into `destDir`. */
export async function repackWithVersion(
	tarballPath: string,
	version: string,
	destDir: string,
): Promise<string> {
	const work = await mkdtemp(join(tmpdir(), 'svc-repack-'));
	try {
		await runChecked('tar (extract)', 'tar', ['-xzf', tarballPath, '-C', work]);
		const manifestPath = join(work, 'package', 'package.json');
		const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as PackageManifest;
		await writeFile(manifestPath, `${JSON.stringify({ ...manifest, version }, null, 2)}\n`);
		const out = join(destDir, `${manifest.name}-${version}.tgz`);
		await runChecked('tar (pack)', 'tar', ['-czf', out, '-C', work, 'package']);
		return out;
	} finally {
		await rm(work, { recursive: true, force: true });
	}
}

/** Starts the stand-in, with a CA of its own (`ca`) for the n8n it serves to trust. */
export async function startLocalRegistry(): Promise<LocalRegistry> {
	const packages = new Map<string, Map<string, Published>>();
	const latest = new Map<string, string>();
	const requested: string[] = [];

	const tarballFile = (name: string, version: string) =>
		`${name.split('/').pop() ?? name}-${version}.tgz`;
	const versionManifest = (published: Published) => ({
		...published.manifest,
		_id: `${published.manifest.name}@${published.manifest.version}`,
		dist: {
			tarball: `${PUBLIC_REGISTRY}/${published.manifest.name}/-/${tarballFile(published.manifest.name, published.manifest.version)}`,
			shasum: published.shasum,
			integrity: published.integrity,
		},
	});

	function serve(request: IncomingMessage, response: ServerResponse): void {
		// Through the tunnel the URL is a path; as a plain proxy request (axios does that) it is absolute.
		const target = new URL(request.url ?? '/', PUBLIC_REGISTRY);
		const send = (status: number, body: unknown, type = 'application/json') => {
			const payload = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
			response.writeHead(status, { 'content-type': type, 'content-length': payload.length });
			response.end(payload);
		};
		const notFound = () => send(404, { error: 'Not found' });
		if (target.host !== PUBLIC_REGISTRY_HOST)
			return send(403, { error: `Only ${PUBLIC_REGISTRY_HOST} is served here` });
		const path = decodeURIComponent(target.pathname);
		requested.push(path);
		if (request.method !== 'GET') return send(405, { error: 'Only GET is served here' });

		// Longest package name first, so a scoped name is not cut at its slash.
		const name = [...packages.keys()]
			.sort((a, b) => b.length - a.length)
			.find((candidate) => path === `/${candidate}` || path.startsWith(`/${candidate}/`));
		if (!name) return notFound();
		const versions = packages.get(name) as Map<string, Published>;
		const rest = path.slice(name.length + 2);
		if (rest === '') {
			return send(200, {
				name,
				'dist-tags': { latest: latest.get(name) },
				versions: Object.fromEntries(
					[...versions].map(([version, published]) => [version, versionManifest(published)]),
				),
			});
		}
		const tarball = /^-\/(.+)$/.exec(rest);
		if (tarball) {
			const published = [...versions.values()].find(
				(candidate) => tarballFile(name, candidate.manifest.version) === tarball[1],
			);
			return published ? send(200, published.tarball, 'application/octet-stream') : notFound();
		}
		const published = versions.get(rest === 'latest' ? (latest.get(name) ?? '') : rest);
		return published ? send(200, versionManifest(published)) : notFound();
	}

	const certDir = await mkdtemp(join(tmpdir(), 'svc-registry-tls-'));
	const ca = await makeLocalCa(join(certDir, 'ca'));
	const certificate = {
		certPath: join(certDir, 'registry.crt'),
		keyPath: join(certDir, 'registry.key'),
	};
	await issueCertificate(ca, certificate, [PUBLIC_REGISTRY_HOST]);
	// Never listens: the proxy hands it each tunnel to registry.npmjs.org.
	const tls = createHttpsServer(
		{ cert: await readFile(certificate.certPath), key: await readFile(certificate.keyPath) },
		serve,
	);
	const tunnels = new Set<Socket>();
	const proxy: Server = createServer(serve);
	proxy.on('connect', (request: IncomingMessage, socket: Socket, head: Buffer) => {
		if (request.url !== `${PUBLIC_REGISTRY_HOST}:443`) {
			socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
			return;
		}
		tunnels.add(socket);
		socket.once('close', () => tunnels.delete(socket));
		socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
		if (head.length > 0) socket.unshift(head);
		tls.emit('connection', socket);
	});
	await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
	const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

	return {
		proxyUrl,
		ca,
		env: () => ({
			// npm under some Node versions ignores NODE_EXTRA_CA_CERTS; its own setting always counts.
			npm_config_cafile: ca.caCertPath,
			HTTPS_PROXY: proxyUrl,
			https_proxy: proxyUrl,
			NO_PROXY: 'localhost,127.0.0.1,::1',
			no_proxy: 'localhost,127.0.0.1,::1',
		}),
		async publish(tarballPath) {
			const tarball = await readFile(tarballPath);
			const manifest = await manifestOf(tarballPath);
			const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
			const shasum = createHash('sha1').update(tarball).digest('hex');
			const versions = packages.get(manifest.name) ?? new Map<string, Published>();
			versions.set(manifest.version, { manifest, tarball, integrity, shasum });
			packages.set(manifest.name, versions);
			latest.set(manifest.name, manifest.version);
			return { name: manifest.name, version: manifest.version, integrity };
		},
		requests: () => [...requested],
		async close() {
			for (const socket of tunnels) socket.destroy();
			tls.closeAllConnections();
			await new Promise<void>((resolve, reject) => {
				proxy.closeAllConnections();
				proxy.close((error) => (error ? reject(error) : resolve()));
			});
			await rm(certDir, { recursive: true, force: true });
		},
	};
}
