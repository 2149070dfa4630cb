/**
 * Who may publish: only .github/workflows/publish.yml, from GitHub Actions with npm provenance.
 * npm passes `--provenance` to lifecycle scripts as `npm_config_provenance=true`; a job that sets
 * `NPM_CONFIG_PROVENANCE=true` in its environment (as `n8n-node release` does) is accepted too.
 */

export type Environment = Record<string, string | undefined>;

/** Why publishing from this environment is refused, or `undefined` when it may go on. */
export function releaseRefusal(env: Environment): string | undefined {
	const reasons: string[] = [];
	if (env.GITHUB_ACTIONS !== 'true')
		reasons.push('it is not running in GitHub Actions (GITHUB_ACTIONS is not "true")');
	if (env.npm_config_provenance !== 'true' && env.NPM_CONFIG_PROVENANCE !== 'true') {
		reasons.push('npm provenance is off (publish with `npm publish --provenance`)');
	}
	if (reasons.length === 0) return undefined;
	return [
		'npm publish refused: n8n-nodes-svc is published only by .github/workflows/publish.yml, on a version tag,',
		'from GitHub Actions with npm provenance (n8n requires provenance for verified community nodes).',
		`This publish was refused because ${reasons.join(' and ')}.`,
		'To release: bump the version, update CHANGELOG.md, then push a tag vX.Y.Z (see RELEASING.md).',
	].join('\n');
}
