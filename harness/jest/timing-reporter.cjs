// Jest loads reporters without its transform: this loads the TypeScript one through tsx.
module.exports = require('tsx/cjs/api').require('./timing-reporter.ts', __filename).default;
