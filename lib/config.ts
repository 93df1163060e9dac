// Runtime settings, read from the environment on each access so tests and the
// local stack can point the same code at different endpoints.
const env = (name: string, fallback: string): string => {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : value;
};

/** A setting that is a number of minutes or the like: `fallback` when it is not a finite number at least 0. */
const nonNegative = (value: string, fallback: number): number => {
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
};

/**
 * The stage is never guessed. Defaulting to `local` once let the operator CLI, run against a real table
 * without STAGE, seal a new account's federation key with the public development secret (lib/secrets.ts)
 * without a word. `npm start` sets it for the functions it runs (serverless offline --stage local), deployed
 * functions have it from serverless.yml, tests from test/support/env.ts, the CLI from the operator.
 */
export class StageNotSet extends Error {
  constructor() {
    super(
      'STAGE is not set: set it to the stage this process serves (STAGE=prod, STAGE=local ...). ' +
        '`npm start` sets it for the local stack and serverless.yml for deployed functions; nothing falls back to local, whose secrets are public.',
    );
    this.name = 'StageNotSet';
  }
}

/** The stage, or StageNotSet. Entry points call it when they are built, so that a process without STAGE refuses to start. */
export function requireStage(): string {
  const stage = process.env.STAGE;
  if (stage === undefined || stage.trim() === '') throw new StageNotSet();
  return stage;
}

/** The stage's public URL as its stack published it (CdnPublicUrl), once lib/secrets.ts has read it. */
let deployedOrigin: string | undefined;

/**
 * Sets the public URL a deployed stage serves from, read at run time with the secrets (lib/secrets.ts): the
 * functions' environment cannot name the CloudFront distribution, which names one of them (infra/cdn.yml). It
 * is the default of BASE_URL, STREAMING_URL (the same host over wss) and MEDIA_URL (its /system).
 */
export function useDeployedOrigin(url: string | undefined): void {
  deployedOrigin = url ? url.replace(/\/+$/, '') : undefined;
}

export const config = {
  get stage() { return requireStage(); },
  get tableName() { return env('TABLE_NAME', 'tootless-local'); },
  get mediaBucket() { return env('MEDIA_BUCKET', 'tootless-media-local'); },
  /** Public base URL of the HTTP API, without a trailing slash. */
  get baseUrl() { return env('BASE_URL', deployedOrigin ?? 'http://localhost:3000').replace(/\/+$/, ''); },
  /** The instance's domain as clients and WebFinger see it (host[:port]). */
  get domain() { return env('LOCAL_DOMAIN', new URL(this.baseUrl).host); },
  get streamingUrl() { return env('STREAMING_URL', deployedOrigin?.replace(/^http/, 'ws') ?? 'ws://localhost:3001').replace(/\/+$/, ''); },
  /**
   * The WebSocket API's Management API (`https://<api id>.execute-api.<region>.amazonaws.com/<stage>`),
   * where frames are posted and connections closed. The public STREAMING_URL may be a custom domain
   * or CloudFront, which do not serve it; without this setting it is derived from STREAMING_URL,
   * as serverless offline serves both on one port.
   */
  get streamingManagementUrl() { return env('STREAMING_MANAGEMENT_URL', '').replace(/\/+$/, ''); },
  /** Public base URL under which media object keys are served. */
  get mediaUrl() { return env('MEDIA_URL', deployedOrigin ? `${deployedOrigin}/system` : `http://localhost:4569/${this.mediaBucket}`).replace(/\/+$/, ''); },
  get region() { return env('AWS_REGION', 'us-east-1'); },
  get awsEndpoint() { return process.env.AWS_ENDPOINT_URL || undefined; },
  endpointFor(service: 'DYNAMODB' | 'S3' | 'SQS' | 'LAMBDA' | 'SESV2' | 'SSM') {
    return process.env[`AWS_ENDPOINT_URL_${service}`] || process.env.AWS_ENDPOINT_URL || undefined;
  },
  /** How queued messages reach workers: sqs (AWS/LocalStack), lambda (serverless-offline invoke), inline (tests). */
  get queueMode() { return env('QUEUE_MODE', 'sqs') as 'sqs' | 'lambda' | 'inline'; },
  get lambdaEndpoint() { return env('LAMBDA_ENDPOINT', 'http://localhost:3002'); },
  get functionPrefix() { return env('FUNCTION_PREFIX', `tootless-${this.stage}-`); },
  queueUrl(queue: string) { return process.env[`QUEUE_URL_${queue.toUpperCase()}`]; },
  /** Where the local mailer writes messages when SES is not in use. */
  get mailDir() { return env('MAIL_DIR', '.data/mail'); },
  get mailFrom() { return env('MAIL_FROM', `notifications@${this.domain.split(':')[0]}`); },
  get useSes() { return env('MAIL_TRANSPORT', 'log') === 'ses'; },
  /**
   * The SSM path of the stage's secrets (`/tootless/<stage>` in AWS); empty: they come from the
   * environment (SECRET_KEY_BASE, VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY), as on the local stack and in tests.
   */
  get secretsPath() { return env('SECRETS_PATH', '').replace(/\/+$/, ''); },
  get exposeMetrics() { return env('EXPOSE_METRICS', '') === '1'; },
  /** Push endpoints on loopback (and over plain http there) are accepted only on the local stage, or when tests ask. */
  get pushAllowLoopback() { return this.stage === 'local' || env('PUSH_ALLOW_LOOPBACK', '') === '1'; },
  /**
   * Outbound federation (fetches, deliveries) may reach loopback and private addresses, over plain http
   * too: two stacks side by side on one machine. Honoured only on the local stage; elsewhere public https only.
   */
  get federationAllowPrivate() { return this.stage === 'local' && env('FEDERATION_ALLOW_PRIVATE', '') === '1'; },
  /**
   * Multiplies every rate limit (lib/http/ratelimit.ts). 1, Mastodon's limits, on the local stack and in AWS
   * alike; test stacks that send thousands of requests from one address raise it.
   */
  get rateLimitFactor() {
    const factor = Number(env('RATE_LIMIT_FACTOR', '1'));
    return Number.isFinite(factor) && factor > 0 ? factor : 1;
  },
  /**
   * Requests from loopback go past the rate limits on the local stage, as Mastodon lets localhost past Rack::Attack
   * (a client library's own test suite registers dozens of accounts from 127.0.0.1). RATE_LIMIT_LOOPBACK=1 holds
   * loopback to them too (the rate-limit tests and the benchmarks set it). Never on a deployed stage.
   */
  get rateLimitLoopback() { return this.stage !== 'local' || env('RATE_LIMIT_LOOPBACK', '') === '1'; },
  /**
   * Hits of the general API budgets an instance counts before it writes them (lib/http/rate_tally.ts):
   * 10. The integration tests set 1, every hit written, so that a request's DynamoDB calls do not depend
   * on the requests before it; test/integration/rate-tally.test.ts tests the batches.
   */
  get rateTallyBatch() {
    const batch = Number(env('RATE_TALLY_BATCH', '10'));
    return Number.isInteger(batch) && batch >= 1 ? batch : 10;
  },
  /**
   * When a remote thread's replies are asked of its servers (lib/statuses/replies_refresh.ts), as Mastodon's
   * FETCH_REPLIES_INITIAL_WAIT_MINUTES (5) and FETCH_REPLIES_COOLDOWN_MINUTES (15).
   */
  get fetchRepliesInitialWaitMinutes() { return nonNegative(env('FETCH_REPLIES_INITIAL_WAIT_MINUTES', '5'), 5); },
  get fetchRepliesCooldownMinutes() { return nonNegative(env('FETCH_REPLIES_COOLDOWN_MINUTES', '15'), 15); },
  /**
   * Machine translation of statuses, named as Mastodon's settings (its TranslationService): DeepL when its API
   * key is set (DEEPL_PLAN `free`, the default, or `pro`: which DeepL API host), else LibreTranslate when
   * LIBRE_TRANSLATE_ENDPOINT is (its base URL); with neither, translation is off (lib/translation/). The keys
   * are secrets (lib/secrets.ts: SSM on a deployed stage, DEEPL_API_KEY / LIBRE_TRANSLATE_API_KEY locally).
   */
  get deeplPlan() { return env('DEEPL_PLAN', 'free'); },
  get libreTranslateEndpoint() { return env('LIBRE_TRANSLATE_ENDPOINT', '').replace(/\/+$/, ''); },
};

export const SOFTWARE = { name: 'tootless', version: '0.1.0' };

/**
 * The Mastodon release whose client API this server implements, in the one place every report of it reads
 * (v1 and v2 instance, NodeInfo). Clients turn features on from it: Ice Cubes reads `version` and
 * `api_versions.mastodon`, Phanpy, Tusky and the official Android app `api_versions.mastodon` (4.3.0 reports 2,
 * 4.4 up to 6, 4.5 7, 4.6 8 to 10: quotes at 7, the profile API at 8 and 9, collections and fallback
 * notifications at 10); Phanpy's and Pachli's version gates read NodeInfo's software name, which is ours.
 * Raise both together, and only once the API of that release works here (README, "The Mastodon 4 API").
 */
export const MASTODON_COMPATIBILITY = { version: '4.6.0', apiVersions: { mastodon: 10 } } as const;
/** Reported as the instance's `version`: `4.6.0 (compatible; tootless 0.1.0)`, as compatible servers spell it. */
export const API_VERSION = `${MASTODON_COMPATIBILITY.version} (compatible; ${SOFTWARE.name} ${SOFTWARE.version})`;
