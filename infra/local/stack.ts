// Settings of the local stack (ports, data, URLs) read from the environment, and
// the environment `serverless offline` and the handlers it runs are given.
// Used by infra/local/start.ts; pure, so the e2e helper and tests can reuse it.
import { isAbsolute, join, resolve } from 'node:path';

export type LocalSettings = {
  host: string;
  port: number;
  wsPort: number;
  lambdaPort: number;
  s3Port: number;
  dynamoPort: number;
  dataDir: string;
  mailDir: string;
  tableName: string;
  bucket: string;
  baseUrl: string;
  streamingUrl: string;
  lambdaEndpoint: string;
  mediaUrl: string;
  /** LocalStack (or any AWS-compatible endpoint): no emulator is started. */
  awsEndpoint: string | undefined;
  /** Where serverless-esbuild builds this stack's handlers, relative to the project. */
  esbuildWorkFolder: string;
};

type Env = Record<string, string | undefined>;

const int = (env: Env, name: string, fallback: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0 || value > 65535) throw new Error(`${name} must be a port number, not ${raw}`);
  return value;
};

const str = (env: Env, name: string, fallback: string): string => {
  const raw = env[name];
  return raw === undefined || raw === '' ? fallback : raw;
};

export function localSettings(env: Env, root: string): LocalSettings {
  const host = str(env, 'HOST', 'localhost');
  const port = int(env, 'PORT', 3000);
  const wsPort = int(env, 'WS_PORT', 3001);
  const lambdaPort = int(env, 'LAMBDA_PORT', 3002);
  const s3Port = int(env, 'S3_PORT', 4569);
  const dynamoPort = int(env, 'DYNAMO_PORT', 4567);
  const dataDirRaw = str(env, 'DATA_DIR', '.data');
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(root, dataDirRaw);
  const awsEndpoint = env.AWS_ENDPOINT_URL || undefined;
  const bucket = str(env, 'MEDIA_BUCKET', 'tootless-media-local');
  return {
    host,
    port,
    wsPort,
    lambdaPort,
    s3Port,
    dynamoPort,
    dataDir,
    mailDir: str(env, 'MAIL_DIR', join(dataDir, 'mail')),
    tableName: str(env, 'TABLE_NAME', 'tootless-local'),
    bucket,
    baseUrl: `http://${host}:${port}`,
    streamingUrl: `ws://${host}:${wsPort}`,
    lambdaEndpoint: `http://${host}:${lambdaPort}`,
    mediaUrl: awsEndpoint ? `${(env.AWS_ENDPOINT_URL_S3 || awsEndpoint).replace(/\/+$/, '')}/${bucket}` : `http://${host}:${s3Port}/${bucket}`,
    awsEndpoint,
    esbuildWorkFolder: join('.esbuild', `local-${port}`),
  };
}

/** The environment of `serverless offline`: serverless.yml's local params read it, and handlers inherit the AWS_* part. */
export function offlineEnv(
  s: LocalSettings,
  base: Env,
  aws: { dynamoEndpoint: string; s3Endpoint: string; credentials: { accessKeyId: string; secretAccessKey: string } },
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  Object.assign(env, {
    AWS_ENDPOINT_URL_DYNAMODB: aws.dynamoEndpoint,
    AWS_ENDPOINT_URL_S3: aws.s3Endpoint,
    AWS_REGION: str(base, 'AWS_REGION', 'us-east-1'),
    TABLE_NAME: s.tableName,
    MEDIA_BUCKET: s.bucket,
    BASE_URL: s.baseUrl,
    STREAMING_URL: s.streamingUrl,
    MEDIA_URL: s.mediaUrl,
    LAMBDA_ENDPOINT: s.lambdaEndpoint,
    FUNCTION_PREFIX: 'tootless-local-',
    MAIL_DIR: s.mailDir,
    EXPOSE_METRICS: str(base, 'EXPOSE_METRICS', '1'),
    HOST: s.host,
    PORT: String(s.port),
    WS_PORT: String(s.wsPort),
    LAMBDA_PORT: String(s.lambdaPort),
    ESBUILD_WORK_FOLDER: s.esbuildWorkFolder,
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
  });
  if (s.awsEndpoint) {
    // LocalStack: real SQS; the queue URLs come from the environment (QUEUE_URL_MAIL, ...).
    env.QUEUE_MODE = 'sqs';
    env.AWS_ACCESS_KEY_ID = str(base, 'AWS_ACCESS_KEY_ID', 'test');
    env.AWS_SECRET_ACCESS_KEY = str(base, 'AWS_SECRET_ACCESS_KEY', 'test');
  } else {
    // No SQS emulator: the queue adapter invokes `<queue>Worker` through the Lambda invoke endpoint.
    env.QUEUE_MODE = 'lambda';
    // s3rver accepts only its own key pair (dynalite accepts any).
    env.AWS_ACCESS_KEY_ID = aws.credentials.accessKeyId;
    env.AWS_SECRET_ACCESS_KEY = aws.credentials.secretAccessKey;
  }
  delete env.AWS_SESSION_TOKEN;
  delete env.AWS_PROFILE;
  return env;
}

/** Resolves once `url` answers HTTP at all (any status); gives up when `abandon()` says so. */
export async function waitForHttp(url: string, abandon: () => boolean, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!abandon()) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.body?.cancel();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
