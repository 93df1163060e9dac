// `npm start`: the whole service on this machine, with no Docker and no account.
// dynalite and s3rver run in this process; the table and bucket are created from
// infra/; `serverless offline start` builds the bundles and runs the front
// (infra/local/stream-front.ts): the HTTP API, the WebSocket API, the schedules and the
// Lambda invoke endpoint that the queue adapter uses in place of SQS.
// With AWS_ENDPOINT_URL set (LocalStack) no emulator starts and queues are SQS.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBucket, ensureTable, LOCAL_CREDENTIALS } from './bootstrap';
import { startEmulators, type Emulators } from './emulators';
import { localSettings, offlineEnv, waitForHttp, type LocalSettings } from './stack';
import { localVapidKeys } from '../../lib/push/vapid';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const say = (line: string) => process.stdout.write(`[stack] ${line}\n`);

// The SDK's notice that future releases need Node 22 would repeat on every cold start.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const settings: LocalSettings = localSettings(process.env, root);
let emulators: Emulators | undefined;
let offline: ChildProcess | undefined;
let stopping = false;

/** Stops serverless offline (and the esbuild service it started), then the emulators, then exits. */
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  say('stopping');
  const child = offline;
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  await emulators?.stop().catch(() => undefined);
  rmSync(join(root, settings.esbuildWorkFolder), { recursive: true, force: true });
  say('stopped');
  process.exit(code);
}

async function main(): Promise<void> {
  const started = Date.now();
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGHUP', () => void stop(0));

  mkdirSync(settings.mailDir, { recursive: true });
  let dynamoEndpoint: string;
  let s3Endpoint: string;
  if (settings.awsEndpoint) {
    dynamoEndpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB || settings.awsEndpoint;
    s3Endpoint = process.env.AWS_ENDPOINT_URL_S3 || settings.awsEndpoint;
    say(`using the AWS endpoint ${settings.awsEndpoint}; no emulator started`);
  } else {
    emulators = await startEmulators({ host: settings.emulatorHost, dynamoPort: settings.dynamoPort, s3Port: settings.s3Port, dataDir: settings.dataDir });
    dynamoEndpoint = emulators.dynamoEndpoint;
    s3Endpoint = emulators.s3Endpoint;
    say(`dynalite on ${dynamoEndpoint}, s3rver on ${s3Endpoint}, data in ${settings.dataDir}`);
  }
  await ensureTable(dynamoEndpoint, settings.tableName);
  await ensureBucket(s3Endpoint, settings.bucket);
  say(`table ${settings.tableName} and bucket ${settings.bucket} ready`);

  const env = offlineEnv(settings, process.env, { dynamoEndpoint, s3Endpoint, credentials: LOCAL_CREDENTIALS });
  // Web Push: the stage's VAPID key pair, made on the first start and kept with the data (a new
  // pair would orphan every push subscription); VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY override it.
  const vapid = localVapidKeys(process.env, settings.dataDir);
  Object.assign(env, { VAPID_PUBLIC_KEY: vapid.publicKey, VAPID_PRIVATE_KEY: vapid.privateKey });
  if (vapid.source === 'created') say(`Web Push key pair created in ${join(settings.dataDir, 'vapid.json')}`);
  const serverless = [join(root, 'node_modules/serverless/bin/serverless.js'), 'offline', 'start', '--stage', 'local'];
  offline = spawn(process.execPath, serverless, {
    cwd: root,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  offline.once('exit', (code, signal) => {
    if (stopping) return;
    say(`serverless offline exited (${signal ?? code}); stopping`);
    void stop(code ?? 1);
  });

  // Asked at the address it listens on: BASE_URL may be a name this machine cannot resolve (a proxy's, a tunnel's).
  await waitForHttp(`${settings.listenUrl}/`, () => stopping || offline?.exitCode !== null);
  if (stopping) return;
  say(`WebSocket ${settings.streamingUrl}, Lambda invoke ${settings.lambdaEndpoint}, media ${settings.mediaUrl}, mail in ${settings.mailDir}`);
  const listening = settings.listenUrl === settings.baseUrl ? '' : `, listening on ${settings.listenUrl}`;
  say(`API ready on ${settings.baseUrl} as ${settings.localDomain}${listening} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

main().catch((err: unknown) => {
  process.stderr.write(`[stack] failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  void stop(1);
});
