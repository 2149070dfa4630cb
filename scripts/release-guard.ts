/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- tooling that runs in Node.js beside n8n, never inside it */
/**
 * `prepublishOnly` guard: the package is published only by `.github/workflows/publish.yml`, from
 * GitHub Actions with npm provenance. A plain `npm publish` anywhere else stops here, before the
 * build and before anything reaches the registry.
 *
 *   tsx scripts/release-guard.ts     exit 0: publishing may go on; exit 1: refused, with the reason
 */
import { releaseRefusal } from '../harness/release';

const refusal = releaseRefusal(process.env);
if (refusal) {
	console.error(refusal);
	process.exitCode = 1;
} else {
	console.log('release guard: GitHub Actions with provenance, publishing may go on');
}
