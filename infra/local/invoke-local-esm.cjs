// Lets `serverless invoke local` run our ES-module bundles (functions/x/y.mjs).
// Serverless v3 loads the handler with require() and looks only for y.js and
// y.cjs; a y.js would be read as CommonJS inside a Lambda zip (no package.json
// there says "module"), so the bundles must stay .mjs. This writes y.cjs beside
// the bundle that serverless-esbuild has just built, re-exporting it (Node 20.19+
// can require() an ES module that has no top-level await).
//
//   npx serverless invoke local --stage local -f appsCreate -p events/http-apps-create.json
'use strict';

const { existsSync, writeFileSync } = require('node:fs');
const { basename, dirname, join } = require('node:path');

class InvokeLocalEsm {
  constructor(serverless, options) {
    this.serverless = serverless;
    this.options = options;
    // Runs after serverless-esbuild's hook of the same name (listed before this plugin).
    this.hooks = { 'before:invoke:local:invoke': () => this.shim() };
  }

  shim() {
    const fn = this.serverless.service.getFunction(this.options.function);
    const file = fn.handler.slice(0, fn.handler.lastIndexOf('.'));
    const bundle = join(this.serverless.config.servicePath, `${file}.mjs`);
    if (!existsSync(bundle)) return;
    writeFileSync(join(dirname(bundle), `${basename(file)}.cjs`), `module.exports = require('./${basename(file)}.mjs');\n`);
  }
}

module.exports = InvokeLocalEsm;
