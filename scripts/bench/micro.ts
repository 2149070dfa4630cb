/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- tooling that runs in Node.js beside n8n, never inside it */
/** Benchmarks that need no n8n: signature verification (d) and the cost of loading the node (e). */
import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import type {
	secretKey as SecretKey,
	verifyDelivery as VerifyDelivery,
} from '../../nodes/Svc/trigger/webhook/signature';
import { runCommand } from '../../harness/commands';
import { median } from './stats';

export interface SignatureResult {
	nodePerSecond: number;
	rawPerSecond: number;
	/** The raw verifier with a KeyObject made once instead of a Buffer key: a reference, not the target. */
	keyObjectPerSecond: number;
	/** node / raw, median of the per-round ratios. */
	ratio: number;
	bodyBytes: number;
}

/** Calls `work` in batches until `ms` have passed; returns calls per second. */
function throughput(work: () => boolean, ms: number): number {
	let calls = 0;
	let valid = 0;
	const started = performance.now();
	let elapsed = 0;
	while (elapsed < ms) {
		for (let i = 0; i < 500; i++) if (work()) valid++;
		calls += 500;
		elapsed = performance.now() - started;
	}
	// Every call must have accepted the signature, or the figure measures a shortcut.
	if (valid !== calls)
		throw new Error(`signature benchmark: ${calls - valid} of ${calls} verifications failed`);
	return (calls / elapsed) * 1000;
}

/**
 * verifyDelivery from the built package against a minimal verifier on node:crypto doing the
 * same work (HMAC-SHA256 over "<id>.<timestamp>.<body>", base64 decode, timingSafeEqual) with
 * the key decoded once. Rounds alternate between the two so drift hits both alike.
 */
export function benchSignature(distDir: string, rounds = 3, roundMs = 1000): SignatureResult {
	// The built file, as shipped.
	const { secretKey, verifyDelivery } = createRequire(__filename)(
		join(distDir, 'nodes', 'Svc', 'trigger', 'signature.js'),
	) as { secretKey: typeof SecretKey; verifyDelivery: typeof VerifyDelivery };
	const keyBytes = randomBytes(32);
	const secret = `whsec_${keyBytes.toString('base64')}`;
	const id = `msg_${randomBytes(12).toString('hex')}`;
	const timestamp = String(Math.floor(Date.now() / 1000));
	const event = {
		id: 'evt_1',
		type: 'lead.created',
		created_at: new Date().toISOString(),
		data: { note: '' },
	};
	const filler = 1024 - Buffer.byteLength(JSON.stringify(event));
	event.data.note = 'x'.repeat(filler);
	const body = Buffer.from(JSON.stringify(event));
	const signature = `v1,${createHmac('sha256', keyBytes).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;
	const headers = { id, timestamp, signature };
	const now = Number(timestamp);

	// The trigger opens the secret once per process and verifies with its key object.
	const key = secretKey(secret);
	const viaNode = (): boolean => verifyDelivery(key ?? secret, headers, body, now).valid;
	const rawWith = (key: Buffer | ReturnType<typeof createSecretKey>) => (): boolean => {
		const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
		const given = Buffer.from(signature.slice(3), 'base64');
		return given.length === expected.length && timingSafeEqual(given, expected);
	};
	const viaRaw = rawWith(keyBytes);
	// On Node 24 turning a Buffer key into a key object is most of an HMAC's cost for 1 KB.
	const viaKeyObject = rawWith(createSecretKey(keyBytes));

	// Warm both up so the JIT has settled before the first counted round.
	throughput(viaNode, 300);
	throughput(viaRaw, 300);
	throughput(viaKeyObject, 300);
	const nodeRates: number[] = [];
	const rawRates: number[] = [];
	const keyObjectRates: number[] = [];
	const ratios: number[] = [];
	for (let round = 0; round < rounds; round++) {
		const nodeRate = throughput(viaNode, roundMs);
		const rawRate = throughput(viaRaw, roundMs);
		nodeRates.push(nodeRate);
		rawRates.push(rawRate);
		ratios.push(nodeRate / rawRate);
		keyObjectRates.push(throughput(viaKeyObject, roundMs / 2));
	}
	return {
		nodePerSecond: median(nodeRates),
		rawPerSecond: median(rawRates),
		keyObjectPerSecond: median(keyObjectRates),
		ratio: median(ratios),
		bodyBytes: body.length,
	};
}

export interface RequireResult {
	/** Svc.node.js alone, n8n-workflow already loaded (as inside n8n). */
	nodeMs: number;
	/** The same plus `new Svc()` (n8n instantiates each node it loads). */
	nodeAndInstanceMs: number;
	/** n8n-workflow by itself, in the same fresh process. */
	workflowLibMs: number;
	/** Both, i.e. a fresh process requiring the node file directly. */
	coldTotalMs: number;
	samples: number;
}

/** Fresh processes of `nodeBin`, each timing require() of n8n-workflow, then of the built node. */
export async function benchRequire(
	nodeBin: string,
	root: string,
	samples = 7,
): Promise<RequireResult> {
	const nodeFile = join(root, 'dist', 'nodes', 'Svc', 'Svc.node.js');
	const script = `
const t0 = process.hrtime.bigint();
require('n8n-workflow');
const t1 = process.hrtime.bigint();
const { Svc } = require(${JSON.stringify(nodeFile)});
const t2 = process.hrtime.bigint();
new Svc();
const t3 = process.hrtime.bigint();
const ms = (a, b) => Number(b - a) / 1e6;
process.stdout.write(JSON.stringify({ lib: ms(t0, t1), node: ms(t1, t2), instance: ms(t1, t3), total: ms(t0, t2) }));
`;
	const lib: number[] = [];
	const node: number[] = [];
	const instance: number[] = [];
	const total: number[] = [];
	for (let i = 0; i < samples; i++) {
		const { code, stdout, stderr } = await runCommand(nodeBin, ['-e', script], { cwd: root });
		if (code !== 0)
			throw new Error(`Timing require() failed (exit ${code}): ${stderr.slice(-1000)}`);
		const parsed = JSON.parse(stdout) as {
			lib: number;
			node: number;
			instance: number;
			total: number;
		};
		lib.push(parsed.lib);
		node.push(parsed.node);
		instance.push(parsed.instance);
		total.push(parsed.total);
	}
	return {
		nodeMs: median(node),
		nodeAndInstanceMs: median(instance),
		workflowLibMs: median(lib),
		coldTotalMs: median(total),
		samples,
	};
}
