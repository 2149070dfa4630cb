/** The action-node tables beside the bulk runs, (d) signature speed, (e) memory and size, (k) keep-alive, each target beside its figure. */
import type { RequireResult, SignatureResult } from '../micro';
import { fmt, count, median, ratio } from '../stats';
import { mb, yes, type Table } from '../report';
import type { RssPeak } from '../rss';
import type { RunOutcome, Variant } from './runner';
import type { Figures, KeepAlive } from './scenarios';

export function tableD(signature: SignatureResult): Table {
	return {
		title: `(d) signature verification of a ${signature.bodyBytes}-byte delivery`,
		columns: [
			'measure',
			'verifyDelivery (dist)',
			'raw: node:crypto HMAC + timingSafeEqual',
			'reference: raw with a KeyObject',
			'target',
			'met',
		],
		rows: [
			[
				'verifications per second',
				count(signature.nodePerSecond),
				count(signature.rawPerSecond),
				count(signature.keyObjectPerSecond),
				'',
				'',
			],
			[
				'verifyDelivery ÷ raw',
				fmt(signature.ratio, '×'),
				'',
				'',
				'≥ 0.8×',
				yes(signature.ratio >= 0.8),
			],
		],
		notes: [
			'Raw: the key decoded once into a Buffer, HMAC-SHA256 over "<id>.<timestamp>." then the body Buffer, base64 decode of the signature, timingSafeEqual. verifyDelivery also checks the headers and the timestamp window. Reference: the raw verifier given a KeyObject made once with createSecretKey(), which on this Node spares most of the cost of each HMAC.',
		],
	};
}

/** (e) takes its memory rows from (a), when (a) ran. */
export function tableE(
	figures: Figures | undefined,
	tarballKb: number,
	required: RequireResult,
): Table {
	const rss = (variant: Variant, pick: (peak: RssPeak) => number): number =>
		median(
			(figures?.[variant] ?? []).flatMap((figure) =>
				figure.full.rss ? [pick(figure.full.rss)] : [],
			),
		);
	const svcTotal = rss('svc', (peak) => peak.peakTotalKb);
	const httpTotal = rss('http', (peak) => peak.peakTotalKb);
	return {
		title: '(e) memory, package size, load time',
		columns: ['measure', 'Svc node', 'HTTP Request node', 'raw client', 'target', 'met'],
		rows: [
			[
				'peak RSS during (a), n8n main + children',
				mb(svcTotal),
				mb(httpTotal),
				mb(rss('raw', (peak) => peak.peakTotalKb)),
				'≤ HTTP Request',
				figures ? yes(svcTotal <= httpTotal) : 'not run',
			],
			[
				'  of which n8n main process',
				mb(rss('svc', (peak) => peak.peakMainKb)),
				mb(rss('http', (peak) => peak.peakMainKb)),
				'',
				'',
				'',
			],
			[
				'  of which children (task runner)',
				mb(rss('svc', (peak) => peak.peakChildrenKb)),
				mb(rss('http', (peak) => peak.peakChildrenKb)),
				'',
				'',
				'',
			],
			[
				'RSS growth during the run (peak − start)',
				mb(rss('svc', (peak) => peak.peakMainKb - peak.startMainKb)),
				mb(rss('http', (peak) => peak.peakMainKb - peak.startMainKb)),
				mb(rss('raw', (peak) => peak.peakMainKb - peak.startMainKb)),
				'',
				'',
			],
			['packed tarball', fmt(tarballKb, 'KB'), '', '', '≤ 100 KB', yes(tarballKb <= 100)],
			[
				'require dist/nodes/Svc/Svc.node.js (n8n-workflow loaded)',
				fmt(required.nodeMs, 'ms'),
				'',
				'',
				'≤ 50 ms',
				yes(required.nodeMs <= 50),
			],
			['  + new Svc()', fmt(required.nodeAndInstanceMs, 'ms'), '', '', '', ''],
			['  cold, fresh process incl. n8n-workflow', fmt(required.coldTotalMs, 'ms'), '', '', '', ''],
		],
		notes: [
			`RSS: /proc/<pid>/status VmRSS every 100 ms during each N run of (a), each started right after a forced full GC in n8n, median over repetitions; the raw column is the raw client's own process. Require: median of ${required.samples} fresh processes on the runtime's Node; n8n-workflow alone takes ${fmt(required.workflowLibMs, 'ms')}.`,
		],
	};
}

export function tableK(keepAlive: KeepAlive): Table {
	const runs = [keepAlive.svc, keepAlive.http, keepAlive.raw];
	const per1000 = (run: RunOutcome): number =>
		ratio((run.connections ?? 0) * 1000, run.stats.requests);
	// Reuse means far fewer connections than requests; one per request means none.
	const reused = (run: RunOutcome): string =>
		(run.connections ?? 0) * 2 < run.stats.requests ? 'yes' : 'no';
	return {
		title: `(k) keep-alive: TCP connections per 1,000 requests (through a counting proxy, N=${keepAlive.svc.count})`,
		columns: ['measure', 'Svc node', 'HTTP Request node', 'raw client'],
		rows: [
			['connections per 1,000 requests', ...runs.map((run) => count(per1000(run)))],
			[
				'connections / requests',
				...runs.map((run) => `${run.connections} / ${run.stats.requests}`),
			],
			['connections reused (keep-alive in effect)', ...runs.map(reused)],
		],
		notes: [
			'Reported, no target. The raw client shows what keep-alive looks like: one connection per concurrent worker.',
		],
	};
}
