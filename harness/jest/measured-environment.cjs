// Jest loads a test environment without resolving TypeScript imports when it runs in band after
// the globalSetup: this loads the TypeScript one through tsx.
module.exports = require('tsx/cjs/api').require('./measured-environment.ts', __filename).default;
