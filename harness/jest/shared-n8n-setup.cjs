// Jest loads a globalSetup without resolving TypeScript imports: this loads the TypeScript one through tsx.
module.exports = require('tsx/cjs/api').require('./shared-n8n.ts', __filename).setUp;
