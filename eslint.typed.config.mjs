import js from '@eslint/js';
import n8nCommunityNodes from '@n8n/eslint-plugin-community-nodes';
import tseslint from 'typescript-eslint';

// Our lint, beside n8n's (eslint.config.mjs, the `n8n-node` template, which `n8n-node lint` runs):
// type-aware TypeScript rules for the whole project, and n8n's community-node rules (the
// cloud-eligible `recommended` set) again on the package and its package.json. `npm run lint` runs
// it with --no-inline-config: the tooling's eslint-disable headers, written for n8n's config, switch
// nothing off here.
const community = n8nCommunityNodes.configs.recommended;

export default tseslint.config(
	{
		ignores: [
			'dist/**',
			'node_modules/**',
			'.n8n-runtime/**',
			'coverage/**',
			'.tmp/**',
			'**/*.js',
			'**/*.mjs',
		],
	},
	{
		files: ['**/*.ts'],
		extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
		languageOptions: {
			parserOptions: { project: ['./tsconfig.tools.json'], tsconfigRootDir: import.meta.dirname },
		},
		rules: {
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
		},
	},
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		extends: [community],
		rules: { 'no-console': 'error' },
	},
	{
		files: ['package.json'],
		extends: [community],
		languageOptions: { parser: tseslint.parser, parserOptions: { extraFileExtensions: ['.json'] } },
	},
);
