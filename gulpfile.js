const { src, dest } = require('gulp');

// tsc emits the JavaScript and the codex files (tsconfig includes nodes/**/*.node.json); n8n loads
// node icons from beside the compiled nodes, and tsc does not copy them.
function copyNodeAssets() {
	return src(['nodes/**/*.svg', 'nodes/**/*.png', 'credentials/**/*.svg'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports['build:icons'] = copyNodeAssets;
