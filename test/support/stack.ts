// Starts the real local stack (infra/local/start.ts: dynalite, s3rver, serverless
// offline and its front) for the end-to-end suite, on free ports with a fresh data directory,
// and stops it with its whole process group. A stack may also listen on an address
// and port of its own under a public name (alpha.test on 127.0.0.2:80), as a server
// on the internet would.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePorts } from '../../infra/local/emulators';
import { localSettings } from '../../infra/local/stack';

const root = fileURLToPath(new URL('../..', import.meta.url));

export type Stack = {
  /** The public URL (BASE_URL): `http://alpha.test` for a named stack. */
  baseUrl: string;
  /** The instance's domain (LOCAL_DOMAIN), what `acct` and WebFinger name: `alpha.test`. */
  domain: string;
  /** The public streaming URL (STREAMING_URL). */
  wsUrl: string;
  /** The WebSocket port, where the Management API (frames, closing) is served (STREAMING_MANAGEMENT_URL). */
  managementUrl: string;
  /** The local stack's Lambda invoke endpoint (the queue adapter's LAMBDA_ENDPOINT). */
  lambdaEndpoint: string;
  /** Its DynamoDB emulator and table: where `npm run admin` finds the stack's state. */
  dynamo: { endpoint: string; tableName: string };
  /** Its S3 emulator and bucket, and the public media URL (MEDIA_URL: the one origin's /system). */
  s3: { endpoint: string; bucket: string; mediaUrl: string };
  dataDir: string;
  mailDir: string;
  /** Milliseconds from spawn to the API answering. */
  startupMs: number;
  /** What the stack printed so far (for failure messages). */
  output: () => string;
  stop: () => Promise<void>;
  /** SIGKILLs the whole process group, as a crash would, and keeps the data directory (a restart may reuse it). */
  kill: () => Promise<void>;
};

// Settings the test process carries for in-process tests (test/support/env.ts);
// the stack must choose its own.
const APP_VARIABLES = /^(STAGE|TABLE_NAME|MEDIA_BUCKET|BASE_URL|LOCAL_DOMAIN|STREAMING_URL|STREAMING_MANAGEMENT_URL|MEDIA_URL|QUEUE_MODE|QUEUE_URL_.*|LAMBDA_ENDPOINT|FUNCTION_PREFIX|MAIL_DIR|MAIL_FROM|MAIL_TRANSPORT|SECRET_KEY_BASE|EXPOSE_METRICS|RATE_LIMIT_FACTOR|RATE_LIMIT_LOOPBACK|RATE_TALLY_BATCH|VAPID_PUBLIC_KEY|VAPID_PRIVATE_KEY|SECRETS_PATH|ORIGIN_SECRET|MEDIA_SIZE_LIMIT|LOG_LEVEL|FEDERATION_ALLOW_PRIVATE|DEEPL_API_KEY|DEEPL_PLAN|LIBRE_TRANSLATE_ENDPOINT|LIBRE_TRANSLATE_API_KEY|AWS_ENDPOINT_URL.*|HOST|PORT|WS_PORT|LAMBDA_PORT|S3_PORT|DYNAMO_PORT|DATA_DIR|ESBUILD_WORK_FOLDER)$/;

export type StackOptions = {
  /** More environment for the stack (wins over everything here). */
  env?: Record<string, string>;
  timeoutMs?: number;
  /** The address the stack listens on (127.0.0.1 unless given: `127.0.0.2`). */
  host?: string;
  /** Its HTTP port (a free one unless given; 80 needs root). */
  port?: number;
  /**
   * The name the stack is public under (`alpha.test`, an /etc/hosts name for `host`): BASE_URL,
   * LOCAL_DOMAIN, STREAMING_URL and MEDIA_URL use it instead of the address.
   */
  publicHost?: string;
  /** A data directory to start on (a killed stack's): kept when the stack stops. */
  dataDir?: string;
};

/** `http://name:port`, without the port when it is the scheme's default (`http://alpha.test`). */
const origin = (scheme: string, host: string, port: number) => new URL(`${scheme}://${host}:${port}`).origin;

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const started = Date.now();
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'tootless-stack-'));
  const removeData = () => {
    if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  const host = opts.host ?? '127.0.0.1';
  // Chosen together, so that no two of them are the same port.
  const [chosen, wsPort, lambdaPort, s3Port, dynamoPort] = (await freePorts(5)) as [number, number, number, number, number];
  const port = opts.port ?? chosen;
  const name = opts.publicHost;
  // Unnamed, the stack derives its URLs from the address and ports (infra/local/stack.ts).
  const publicUrls: Record<string, string> = name
    ? {
        BASE_URL: origin('http', name, port),
        LOCAL_DOMAIN: new URL(origin('http', name, port)).host,
        // One origin, as a deployed stage (infra/cdn.yml): the front serves the WebSocket API and the media too.
        STREAMING_URL: origin('ws', name, port),
        MEDIA_URL: `${origin('http', name, port)}/system`,
      }
    : {};
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !APP_VARIABLES.test(k)) env[k] = v;
  Object.assign(env, {
    HOST: host,
    PORT: String(port),
    WS_PORT: String(wsPort),
    LAMBDA_PORT: String(lambdaPort),
    S3_PORT: String(s3Port),
    DYNAMO_PORT: String(dynamoPort),
    DATA_DIR: dataDir,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // Built once: a rebuild on a source change (an edit elsewhere in the tree) restarts every handler,
    // cutting off requests and queued messages in flight.
    ESBUILD_WATCH: 'none',
    ...publicUrls,
    ...opts.env,
  });

  // What start.ts will make of this environment (the URLs the tests use); a bad setting throws here, before any spawn.
  let settings: ReturnType<typeof localSettings>;
  try {
    settings = localSettings(env, root);
  } catch (err) {
    removeData();
    throw err;
  }

  // Its own process group, so stop() reaches serverless offline and esbuild too.
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
    cwd: root,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // STACK_LOG_DIR (a directory): the stack's output is also kept there, one file per stack, for a failure's post-mortem.
  const logFile = process.env.STACK_LOG_DIR ? join(process.env.STACK_LOG_DIR, `${name ?? host}-${port}-${started}.log`) : undefined;
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    if (logFile) appendFileSync(logFile, chunk);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 15_000);
      await exited;
      clearTimeout(timer);
    }
    removeData();
  };
  const kill = async () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    await exited;
  };

  // Ready when an endpoint answers as the API does: 401 JSON without a token.
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`the local stack exited before it was ready:\n${output}`);
    }
    try {
      const res = await fetch(`${settings.listenUrl}/api/v1/apps/verify_credentials`, { signal: AbortSignal.timeout(5_000) });
      const body = await res.text();
      if (res.status === 401 && (res.headers.get('content-type') ?? '').includes('json') && body.includes('"error"')) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the local stack did not answer within ${(opts.timeoutMs ?? 120_000) / 1000} s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }

  return {
    baseUrl: settings.baseUrl,
    domain: settings.localDomain,
    wsUrl: settings.streamingUrl,
    managementUrl: settings.streamingManagementUrl,
    lambdaEndpoint: settings.lambdaEndpoint,
    dynamo: { endpoint: `http://${settings.emulatorHost}:${settings.dynamoPort}`, tableName: settings.tableName },
    s3: { endpoint: `http://${settings.emulatorHost}:${settings.s3Port}`, bucket: settings.bucket, mediaUrl: settings.mediaUrl },
    dataDir,
    mailDir: join(dataDir, 'mail'),
    startupMs: Date.now() - started,
    output: () => output,
    stop,
    kill,
  };
}

/**
 * A local stack for the current `describe` block (or file): started before its tests,
 * stopped after them. Answers a getter, since the stack exists only once beforeAll ran.
 */
export function useStack(opts: StackOptions = {}): () => Stack {
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await startStack(opts);
  }, 240_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);
  return () => {
    if (!stack) throw new Error('the local stack is not running (useStack outside a describe block?)');
    return stack;
  };
}
