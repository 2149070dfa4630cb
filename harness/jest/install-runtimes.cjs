// Jest loads a globalSetup without resolving TypeScript imports: this loads the TypeScript one through tsx.
module.exports = require('tsx/cjs/api').require('./install-runtimes.ts', __filename).default;
