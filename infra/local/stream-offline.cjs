// Serverless plugin: the front of the local stack (`serverless offline start`, which
// `npm start` runs). infra/local/stream-front.ts serves the HTTP API, the functions
// whose `url` streams its response (`invokeMode: RESPONSE_STREAM`, which
// serverless-offline 13 cannot stream), the WebSocket API, Lambda's invoke endpoint
// and the schedules, and runs every function in one pool of warm instances.
//
// It also declares the function property those functions use, `streamRoutes`: the
// requests ('GET /api/v1/streaming/health') that reach the function, locally through
// the front server and in AWS through whatever the operator puts in front of the
// function URLs (README, "Streaming").
'use strict';

const { pathToFileURL } = require('node:url');

class StreamOffline {
  constructor(serverless, options, utils) {
    this.serverless = serverless;
    this.options = options;
    this.log = utils && utils.log;
    serverless.configSchemaHandler.defineFunctionProperties('aws', {
      properties: {
        streamRoutes: {
          type: 'array',
          items: { type: 'string', pattern: '^(GET|POST|PUT|PATCH|DELETE|ANY) /\\S*$' },
        },
      },
    });
    // A function's failure must not end the local stack, as one Lambda container's
    // failure does not end the service in AWS. The pool hears each instance's 'error'
    // (infra/local/function-pool.ts) and lib/http/guard.ts keeps requests from killing
    // their instance; this keeps anything else from killing the stack.
    const survive = (kind) => (err) => {
      const text = err && err.stack ? err.stack : String(err);
      if (this.log) this.log.error(`${kind} in the local stack (it keeps running): ${text}`);
      else process.stderr.write(`${kind} in the local stack (it keeps running): ${text}\n`);
    };
    if (process.argv.includes('offline')) {
      process.on('uncaughtException', survive('uncaught exception'));
      process.on('unhandledRejection', survive('unhandled rejection'));
    }
    this.hooks = {
      // Runs after serverless-esbuild's hook of the same name (listed before this plugin),
      // once the bundles are built, and before serverless offline reads its ports and events
      // (in its init step, after this).
      'before:offline:start:init': () => this.front().then((f) => f.prepare()),
      'after:offline:start:init': () => this.front().then((f) => f.listen()),
      // `serverless offline` without `start` has no init step to hook into.
      'before:offline:start': () => this.front().then(async (f) => {
        await f.prepare();
        await f.listen();
      }),
      'offline:functionsUpdated:cleanup': () => this.instance && this.instance.reload(),
      'before:offline:start:end': () => this.instance && this.instance.close(),
    };
  }

  /** The TypeScript side, loaded through tsx only when serverless offline runs (never when packaging). */
  async front() {
    if (!this.instance) {
      const { tsImport } = await import('tsx/esm/api');
      const { StreamFront } = await tsImport('./stream-front.ts', pathToFileURL(__filename).href);
      // Serverless v3 hands every plugin its logger (notice, warning, error).
      const say = (level, line) => this.log && this.log[level](line);
      this.instance = new StreamFront(this.serverless, this.options, say);
    }
    return this.instance;
  }
}

module.exports = StreamOffline;
