// The environment `serverless offline` and the handlers it runs are given, from the local stack's settings
// (lib/local_stage.ts: ports, data, URLs read from the environment). Used by infra/local/start.ts; pure, so the
// e2e helper and tests can reuse it.
import { randomBytes } from 'node:crypto';
import { localSettings, str, type Env, type LocalSettings } from '../../lib/local_stage';

export { localSettings, type LocalSettings };

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
    LOCAL_DOMAIN: s.localDomain,
    STREAMING_URL: s.streamingUrl,
    STREAMING_MANAGEMENT_URL: s.streamingManagementUrl,
    MEDIA_URL: s.mediaUrl,
    // What the front adds to every request as the distribution adds its origin header (lib/origin.ts): new at each start.
    ORIGIN_SECRET: str(base, 'ORIGIN_SECRET', randomBytes(24).toString('hex')),
    LAMBDA_ENDPOINT: s.lambdaEndpoint,
    FUNCTION_PREFIX: 'tootless-local-',
    MAIL_DIR: s.mailDir,
    EXPOSE_METRICS: str(base, 'EXPOSE_METRICS', '1'),
    // Outbound federation to loopback and private addresses (two stacks on this machine); the functions
    // honour it on the local stage only. serverless.yml's local params hand it to them.
    FEDERATION_ALLOW_PRIVATE: str(base, 'FEDERATION_ALLOW_PRIVATE', ''),
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
