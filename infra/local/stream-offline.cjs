// Serverless plugin: Lambda response streaming on the local stack (`serverless
// offline start`, which `npm start` runs). serverless-offline 13 cannot stream a
// response, so the functions whose `url` has `invokeMode: RESPONSE_STREAM` are
// served by a front server on its HTTP port (infra/local/stream-front.ts), which
// passes every other request on to serverless offline unchanged.
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
    // failure does not end the service in AWS. serverless offline runs each function
    // in a worker thread and leaves the worker's 'error' event unheard, so a worker
    // that dies would throw in this process. lib/http/guard.ts keeps requests from
    // killing their worker; this keeps anything else from killing the stack.
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
      // once the bundles are built, and before serverless offline reads its port.
      // serverless offline makes its own servers (the WebSocket port faces clients) in its init step, after this.
      'before:offline:start:init': () => this.front().then(async (f) => {
        this.jsonClientErrors();
        await this.warmPool();
        return f.prepare();
      }),
      'after:offline:start:init': () => this.front().then((f) => f.listen()),
      // `serverless offline` without `start` has no init step to hook into.
      'before:offline:start': () => this.front().then(async (f) => {
        this.jsonClientErrors();
        await this.warmPool();
        await f.prepare();
        await f.listen();
      }),
      'offline:functionsUpdated:cleanup': () => this.instance && this.instance.reload(),
      'before:offline:start:end': () => this.instance && this.instance.close(),
    };
  }

  /**
   * Node servers made in this process from now on answer a request their parser
   * refuses (oversized headers, a malformed request line) with a JSON error, as the
   * front server does, instead of hapi's bare status line: serverless offline's
   * WebSocket port faces clients too.
   */
  jsonClientErrors() {
    const http = require('node:http');
    if (http.createServer.tootlessJsonErrors) return;
    const create = http.createServer;
    const answer = this.answerClientError;
    const patched = function createServer(...args) {
      const server = create.apply(this, args);
      // After the caller (hapi) has added its own listener, in the same tick.
      process.nextTick(() => {
        server.removeAllListeners('clientError');
        server.on('clientError', answer);
      });
      return server;
    };
    patched.tootlessJsonErrors = true;
    http.createServer = patched;
  }

  /** At most LOCAL_FUNCTION_INSTANCES warm instances per function (infra/local/warm-pool.cjs). */
  async warmPool() {
    const raw = process.env.LOCAL_FUNCTION_INSTANCES;
    const limit = raw === undefined || raw === '' ? 3 : Number(raw);
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`LOCAL_FUNCTION_INSTANCES must be a whole number from 1, not ${raw}`);
    await require('./warm-pool.cjs').limitInstances(limit);
  }

  /** The TypeScript side, loaded through tsx only when serverless offline runs (never when packaging). */
  async front() {
    if (!this.instance) {
      const { tsImport } = await import('tsx/esm/api');
      const { StreamFront, answerClientError } = await tsImport('./stream-front.ts', pathToFileURL(__filename).href);
      this.answerClientError = answerClientError;
      // Serverless v3 hands every plugin its logger (notice, warning, error).
      const say = (level, line) => this.log && this.log[level](line);
      this.instance = new StreamFront(this.serverless, this.options, say);
    }
    return this.instance;
  }
}

module.exports = StreamOffline;
