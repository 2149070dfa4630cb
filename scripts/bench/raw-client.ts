/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * The benchmark's "raw client": a child process (forked by raw.ts) that upserts leads with
 * node:http and a keep-alive agent at a fixed concurrency. It runs outside the benchmark's own
 * process so it does not share an event loop with the sandbox, just as n8n does not.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';

export interface RawJob {
	kind: 'job';
	jobId: number;
	/** Base URL without /v1, e.g. http://127.0.0.1:4010 (or the counting proxy). */
	baseUrl: string;
	apiKey: string;
	count: number;
	concurrency: number;
	/** Emails are `<prefix><index>@example.com`, like the n8n workflows'. */
	prefix: string;
}

export interface RawResult {
	kind: 'result';
	jobId: number;
	ms: number;
	ok: number;
	failed: number;
	statuses: Record<string, number>;
}

interface Answer {
	status: number;
}

function post(agent: Agent, url: URL, apiKey: string, body: string): Promise<Answer> {
	return new Promise((resolve, reject) => {
		const req = request(
			url,
			{
				method: 'POST',
				agent,
				headers: {
					Authorization: `Bearer ${apiKey}`,
					Accept: 'application/json',
					'Content-Type': 'application/json',
					'Content-Length': String(Buffer.byteLength(body)),
					'Idempotency-Key': randomUUID(),
				},
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (chunk: Buffer) => chunks.push(chunk));
				res.on('error', reject);
				res.on('end', () => {
					// Parsed like n8n parses it, so both sides pay for reading the answer.
					JSON.parse(Buffer.concat(chunks).toString('utf8'));
					resolve({ status: res.statusCode ?? 0 });
				});
			},
		);
		req.on('error', reject);
		req.end(body);
	});
}

async function runJob(job: RawJob): Promise<RawResult> {
	// A fresh agent per job: each run pays for its own connections, as an n8n execution would.
	const agent = new Agent({ keepAlive: true, maxSockets: job.concurrency });
	const url = new URL('/v1/leads', job.baseUrl);
	const statuses: Record<string, number> = {};
	let ok = 0;
	let failed = 0;
	let next = 0;
	const started = performance.now();
	const worker = async (): Promise<void> => {
		while (next < job.count) {
			const index = next++;
			const body = JSON.stringify({
				email: `${job.prefix}${index}@example.com`,
				first_name: `B${index}`,
			});
			try {
				const { status } = await post(agent, url, job.apiKey, body);
				statuses[status] = (statuses[status] ?? 0) + 1;
				if (status === 200 || status === 201) ok++;
				else failed++;
			} catch {
				statuses.error = (statuses.error ?? 0) + 1;
				failed++;
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(job.concurrency, job.count) }, worker));
	const ms = performance.now() - started;
	agent.destroy();
	return { kind: 'result', jobId: job.jobId, ms, ok, failed, statuses };
}

process.on('message', (message: RawJob) => {
	if (message.kind !== 'job') return;
	void runJob(message).then((result) => process.send?.(result));
});
process.send?.({ kind: 'ready' });
