// Jest loads its test sequencer without its transform: this loads the TypeScript one through tsx.
module.exports = require('tsx/cjs/api').require('./test-order.ts', __filename).default;
