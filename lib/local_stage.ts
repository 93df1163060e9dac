// Where the local stack (`npm start`, infra/local/) puts everything: its ports, data, table, bucket and public URLs,
// read from the environment, and the key pair its emulators accept. Pure; shared by infra/local (which starts the
// stack) and the operator CLI (lib/admin/cli.ts, which finds the local table here), so that nothing in lib/ imports
// infra/.
import { isIP } from 'node:net';
import { isAbsolute, join, resolve } from 'node:path';

/** The key pair the local emulators accept (s3rver accepts only its own; dynalite any). */
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export type LocalSettings = {
  /** The address serverless offline listens on: `localhost`, any one address (`127.0.0.2`), or `0.0.0.0`. */
  host: string;
  port: number;
  /** The address dynalite and s3rver listen on (the stack's own address when it is one, loopback otherwise). */
  emulatorHost: string;
  wsPort: number;
  lambdaPort: number;
  s3Port: number;
  dynamoPort: number;
  dataDir: string;
  mailDir: string;
  tableName: string;
  bucket: string;
  /** Where the HTTP API listens, as this machine reaches it (`http://127.0.0.2`); BASE_URL may name it otherwise. */
  listenUrl: string;
  /** Public URLs and domain: BASE_URL, STREAMING_URL, MEDIA_URL, LOCAL_DOMAIN when set, else derived from the ports. */
  baseUrl: string;
  localDomain: string;
  streamingUrl: string;
  /**
   * Where the workers post WebSocket frames (the local WebSocket API's Management API, on its own port,
   * infra/local/websocket-api.ts): always this machine's address, since STREAMING_URL may be a public name.
   */
  streamingManagementUrl: string;
  lambdaEndpoint: string;
  mediaUrl: string;
  /** LocalStack (or any AWS-compatible endpoint): no emulator is started. */
  awsEndpoint: string | undefined;
  /** Where serverless-esbuild builds this stack's handlers, relative to the project. */
  esbuildWorkFolder: string;
};

export type Env = Record<string, string | undefined>;

const int = (env: Env, name: string, fallback: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0 || value > 65535) throw new Error(`${name} must be a port number, not ${raw}`);
  return value;
};

export const str = (env: Env, name: string, fallback: string): string => {
  const raw = env[name];
  return raw === undefined || raw === '' ? fallback : raw;
};

/** A public URL given in the environment, without its trailing slashes; its scheme must be one of `schemes`. */
const url = (env: Env, name: string, schemes: string[], fallback: () => string): string => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback();
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new Error(`${name} must be a URL (${schemes.join(' or ')}), not ${raw}`);
  }
  if (!schemes.includes(parsed.protocol.slice(0, -1))) throw new Error(`${name} must be a URL (${schemes.join(' or ')}), not ${raw}`);
  return raw.replace(/\/+$/, '');
};

const UNSPECIFIED = new Set(['0.0.0.0', '::']);

/** How this machine reaches a server listening on `host`: an unspecified address (all interfaces) through loopback. */
const reachable = (host: string): string => (host === '::' ? '::1' : UNSPECIFIED.has(host) ? '127.0.0.1' : host);

/** `scheme://host:port` as a URL's origin: IPv6 in brackets, the scheme's default port left out (`http://alpha.test`). */
const origin = (scheme: string, host: string, port: number): string =>
  new URL(`${scheme}://${isIP(host) === 6 ? `[${host}]` : host}:${port}`).origin;

export function localSettings(env: Env, root: string): LocalSettings {
  const host = str(env, 'HOST', 'localhost');
  const port = int(env, 'PORT', 3000);
  // A stack on its own address (127.0.0.2) serves media there too; `localhost` and `0.0.0.0` keep the emulators on loopback.
  const emulatorHost = isIP(host) && !UNSPECIFIED.has(host) ? host : '127.0.0.1';
  const wsPort = int(env, 'WS_PORT', 3001);
  const lambdaPort = int(env, 'LAMBDA_PORT', 3002);
  const s3Port = int(env, 'S3_PORT', 4569);
  const dynamoPort = int(env, 'DYNAMO_PORT', 4567);
  const dataDirRaw = str(env, 'DATA_DIR', '.data');
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(root, dataDirRaw);
  const awsEndpoint = env.AWS_ENDPOINT_URL || undefined;
  const bucket = str(env, 'MEDIA_BUCKET', 'tootless-media-local');
  const listenUrl = origin('http', reachable(host), port);
  const baseUrl = url(env, 'BASE_URL', ['http', 'https'], () => listenUrl);
  return {
    host,
    port,
    emulatorHost,
    wsPort,
    lambdaPort,
    s3Port,
    dynamoPort,
    dataDir,
    mailDir: str(env, 'MAIL_DIR', join(dataDir, 'mail')),
    tableName: str(env, 'TABLE_NAME', 'tootless-local'),
    bucket,
    listenUrl,
    baseUrl,
    localDomain: str(env, 'LOCAL_DOMAIN', new URL(baseUrl).host),
    // One origin, as a deployed stage's distribution (infra/cdn.yml): the front (infra/local/stream-front.ts) takes the
    // WebSocket handshakes at /api/v1/streaming and serves the bucket under /system/.
    streamingUrl: url(env, 'STREAMING_URL', ['ws', 'wss'], () => new URL(baseUrl).origin.replace(/^http/, 'ws')),
    streamingManagementUrl: origin('http', reachable(host), wsPort),
    lambdaEndpoint: origin('http', reachable(host), lambdaPort),
    mediaUrl: url(env, 'MEDIA_URL', ['http', 'https'], () => `${new URL(baseUrl).origin}/system`),
    awsEndpoint,
    // Two stacks may share a port on different addresses (alpha.test and beta.test both on 80).
    esbuildWorkFolder: join('.esbuild', `local-${host.replace(/[^\w.-]/g, '_')}-${port}`),
  };
}
