/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * nginx from Debian's packages as a round-robin balancer in front of n8n's webhook processors, as
 * queue-mode deployments run it: TLS ends at nginx (with the local CA's certificate), and nginx
 * speaks TLS to the processors over kept-alive connections. Installed with apt-get when missing,
 * run from a private throwaway folder on a loopback port; no system service is touched.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { installDebianPackages } from './debian-packages';
import type { LocalCa } from './local-ca';
import { runCommand } from './commands';
import type { ProcessGroup } from './process-groups';
import { spawnGroup, untilGroupReady } from './process-groups';

const NGINX = '/usr/sbin/nginx';

async function ensureNginx(): Promise<void> {
	if (existsSync(NGINX)) return;
	await installDebianPackages(['nginx'], 'The balancer');
}

export interface BalancerOptions {
	port: number;
	tls: LocalCa;
	/** The processors' ports on 127.0.0.1; each serves https with a certificate of `tls`. */
	upstreamPorts: number[];
}

/** One request as nginx logged it: the Standard Webhooks id it carried and the processor it went to. */
export interface BalancedRequest {
	/** The webhook-id header, '-' when there was none. */
	webhookId: string;
	/** 127.0.0.1:<port> of the processor. */
	upstream: string;
	status: number;
}

export interface Balancer {
	/** https://localhost:<port>/: what n8n's N8N_WEBHOOK_URL takes. */
	url: string;
	port: number;
	upstreamPorts: number[];
	logFile: string;
	/** Every request so far, in the order they ended. */
	requests(): Promise<BalancedRequest[]>;
	stop(): Promise<void>;
}

function config(dir: string, options: BalancerOptions): string {
	const { port, tls, upstreamPorts } = options;
	return `
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 4096; }
http {
	log_format balanced '$http_webhook_id $upstream_addr $status';
	access_log ${join(dir, 'access.log')} balanced;
	client_body_temp_path ${join(dir, 'client-body')};
	proxy_temp_path ${join(dir, 'proxy')};
	fastcgi_temp_path ${join(dir, 'fastcgi')};
	uwsgi_temp_path ${join(dir, 'uwsgi')};
	scgi_temp_path ${join(dir, 'scgi')};
	# Round robin, nginx's default; idle TLS connections to the processors are kept for reuse.
	upstream webhook_processors {
${upstreamPorts.map((upstream) => `		server 127.0.0.1:${upstream};`).join('\n')}
		keepalive 32;
	}
	server {
		listen 127.0.0.1:${port} ssl;
		ssl_certificate ${tls.certPath};
		ssl_certificate_key ${tls.keyPath};
		location / {
			proxy_pass https://webhook_processors;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			proxy_set_header Host $host;
			proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
			proxy_set_header X-Forwarded-Proto https;
			proxy_ssl_trusted_certificate ${tls.caCertPath};
			proxy_ssl_verify on;
			proxy_ssl_name localhost;
			proxy_ssl_session_reuse on;
		}
	}
}
`;
}

async function accepts(port: number): Promise<boolean> {
	return await new Promise((resolve) => {
		const socket = connect(port, '127.0.0.1');
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});
}

/** Starts nginx on `port` in front of the processors; resolves once it accepts connections. */
export async function startBalancer(options: BalancerOptions): Promise<Balancer> {
	await ensureNginx();
	const dir = await mkdtemp(join(tmpdir(), 'svc-balancer-'));
	// nginx's workers run as an unprivileged user when started as root: they must reach the folder.
	await chmod(dir, 0o755);
	const configFile = join(dir, 'nginx.conf');
	await writeFile(configFile, config(dir, options));
	const logFile = join(dir, 'nginx.log');
	const check = await runCommand(NGINX, ['-t', '-q', '-p', dir, '-c', configFile]);
	if (check.code !== 0) throw new Error(`nginx refused its configuration: ${check.stderr.trim()}`);
	const group: ProcessGroup = spawnGroup(
		NGINX,
		['-p', dir, '-c', configFile, '-g', 'daemon off;'],
		{ env: process.env, logFile },
	);
	try {
		await untilGroupReady('nginx', group, async () => await accepts(options.port), {
			timeoutMs: 10_000,
			everyMs: 50,
			logFile: join(dir, 'error.log'),
		});
	} catch (error) {
		await group.stop();
		await rm(dir, { recursive: true, force: true });
		throw error;
	}
	return {
		url: `https://localhost:${options.port}/`,
		port: options.port,
		upstreamPorts: [...options.upstreamPorts],
		logFile: join(dir, 'error.log'),
		requests: async () =>
			(await readFile(join(dir, 'access.log'), 'utf8').catch(() => ''))
				.split('\n')
				.filter(Boolean)
				.map((line) => {
					const [webhookId, upstream, status] = line.split(' ');
					return { webhookId, upstream, status: Number(status) };
				}),
		stop: async () => {
			await group.stop();
			await rm(dir, { recursive: true, force: true });
		},
	};
}
