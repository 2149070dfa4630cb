// Jest loads a test sequencer without resolving TypeScript imports: this loads the TypeScript one through tsx.
module.exports = require('tsx/cjs/api').require('./sequencer.ts', __filename).default;
