const { src, dest } = require('gulp');

// tsc emits only JavaScript; n8n loads node icons and codex files from beside the compiled nodes.
function copyNodeAssets() {
	return src(['nodes/**/*.svg', 'nodes/**/*.png', 'nodes/**/*.node.json', 'credentials/**/*.svg'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports['build:icons'] = copyNodeAssets;
