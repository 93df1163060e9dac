// The one way to AWS from a function: a request signed with SigV4 (aws4) sent over
// node:http(s) with a keep-alive agent, retried as the SDK's standard strategy
// retries (throttling, 5xx, network errors; exponential backoff, full jitter), and
// an AWS error answer turned into an Error named after the AWS error type, with
// `$metadata.httpStatusCode`, as the SDK's exceptions are. The SDK clients weigh
// some 400 kB in every bundle; this is a few.
import http from 'node:http';
import https from 'node:https';
import aws4 from 'aws4';

export type Credentials = { accessKeyId: string; secretAccessKey: string; sessionToken?: string; expiration?: Date };
export type CredentialsProvider = () => Promise<Credentials>;

/** What Lambda (and the local stack, and the tests) put in the environment. */
const fromEnvironment: CredentialsProvider = async () => {
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) {
    throw Object.assign(new Error('AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set'), { name: 'CredentialsProviderError' });
  }
  return { accessKeyId, secretAccessKey, sessionToken: process.env.AWS_SESSION_TOKEN || undefined };
};

let provider: CredentialsProvider = fromEnvironment;
let cached: { credentials: Credentials; until: number } | undefined;

/**
 * Where credentials come from, for the operator CLI run from a laptop (profiles, SSO):
 * `setCredentialsProvider(fromNodeProviderChain())`. Functions keep the environment's.
 */
export function setCredentialsProvider(next: CredentialsProvider | undefined): void {
  provider = next ?? fromEnvironment;
  cached = undefined;
}

async function credentials(): Promise<Credentials> {
  // The environment is read on each call (cheap; tests change it); a provider's answer is kept until 5 minutes before it expires.
  if (provider === fromEnvironment) return provider();
  if (cached && Date.now() < cached.until) return cached.credentials;
  const credentials = await provider();
  cached = { credentials, until: credentials.expiration ? credentials.expiration.getTime() - 5 * 60_000 : Number.POSITIVE_INFINITY };
  return credentials;
}

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

export type AwsRequest = {
  /** The signing name: dynamodb, s3, sqs, ssm, lambda, ses, execute-api. */
  service: string;
  region: string;
  /** Origin and base path: `https://dynamodb.us-east-1.amazonaws.com`, `http://localhost:8000`, `https://x.execute-api.../stage`. */
  endpoint: string;
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** Below the endpoint's path, already URI-encoded. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Attempts in all, the first included (the SDK's maxAttempts: 4 for DynamoDB, 3 elsewhere). */
  maxAttempts?: number;
  /** Around each attempt on the wire (metering). */
  onAttempt?: (phase: 'start' | 'end') => void;
};

export type AwsResponse = { status: number; headers: http.IncomingHttpHeaders; body: Buffer };

/** An AWS error answer, shaped as the SDK's ServiceException: `name` is the AWS error type. */
export type AwsError = Error & { $metadata: { httpStatusCode?: number; requestId?: string; attempts?: number }; $fault?: 'client' | 'server'; [field: string]: unknown };

const THROTTLING = new Set([
  'BandwidthLimitExceeded', 'EC2ThrottledException', 'LimitExceededException', 'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException', 'RequestLimitExceeded', 'RequestThrottled', 'RequestThrottledException',
  'SlowDown', 'ThrottledException', 'Throttling', 'ThrottlingException', 'TooManyRequestsException', 'TransactionInProgressException',
]);
const TRANSIENT = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);
const NETWORK = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

const statusOf = (err: unknown): number | undefined => (err as Partial<AwsError>)?.$metadata?.httpStatusCode;
const isThrottling = (err: unknown): boolean => statusOf(err) === 429 || THROTTLING.has((err as Error)?.name);
const isRetryable = (err: unknown): boolean => {
  const status = statusOf(err) ?? 0;
  return isThrottling(err) || TRANSIENT.has((err as Error)?.name) || NETWORK.has(String((err as { code?: unknown })?.code ?? '')) || (status >= 500 && status <= 599);
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One attempt: sign (afresh: the date is part of the signature), send, read the whole answer. */
async function attempt(req: AwsRequest): Promise<AwsResponse> {
  const url = new URL(req.endpoint);
  const basePath = url.pathname.replace(/\/+$/, '');
  const body = req.body ?? '';
  const signed = aws4.sign(
    {
      service: req.service,
      region: req.region,
      method: req.method,
      host: url.host,
      path: `${basePath}${req.path}`,
      headers: { ...req.headers, ...(req.method === 'GET' || req.method === 'DELETE' ? {} : { 'Content-Length': String(Buffer.byteLength(body)) }) },
      body: body.length > 0 ? body : undefined,
    },
    await credentials(),
  );
  const transport = url.protocol === 'https:' ? https : http;
  const agent = url.protocol === 'https:' ? agents['https:'] : agents['http:'];
  return new Promise<AwsResponse>((resolve, reject) => {
    const request = transport.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        method: req.method,
        path: signed.path,
        headers: signed.headers as http.OutgoingHttpHeaders,
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body.length > 0 ? body : undefined);
  });
}

/** Sees each request as it is sent (retries not included); may answer a function called once it is done. Tests. */
export type RequestObserver = (req: AwsRequest) => (() => void) | void;
const observers = new Set<RequestObserver>();

/** Calls `observer` with every request sent until the answer is called. */
export function observeRequests(observer: RequestObserver): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

/**
 * Sends a request, retrying as the SDK does; answers a 2xx response, or throws the
 * error that `parseError` makes of the last answer (or the network error).
 */
export async function send(req: AwsRequest, parseError: (res: AwsResponse) => AwsError): Promise<AwsResponse> {
  if (observers.size === 0) return sendRetrying(req, parseError);
  const done = [...observers].map((observe) => observe(req));
  try {
    return await sendRetrying(req, parseError);
  } finally {
    for (const finish of done) finish?.();
  }
}

async function sendRetrying(req: AwsRequest, parseError: (res: AwsResponse) => AwsError): Promise<AwsResponse> {
  const maxAttempts = req.maxAttempts ?? 3;
  for (let n = 1; ; n++) {
    let error: unknown;
    req.onAttempt?.('start');
    try {
      const res = await attempt(req);
      if (res.status >= 200 && res.status < 300) return res;
      error = parseError(res);
      (error as AwsError).$metadata.attempts = n;
    } catch (err) {
      error = err;
    } finally {
      req.onAttempt?.('end');
    }
    if (n >= maxAttempts || !isRetryable(error)) throw error;
    // The SDK's standard strategy: full jitter over 100 ms × 2^n (500 ms for throttling), at most 20 s.
    await sleep(Math.random() * Math.min(20_000, (isThrottling(error) ? 500 : 100) * 2 ** n));
  }
}

const header = (res: AwsResponse, name: string): string | undefined => {
  const value = res.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** An error named `name`, with the SDK exception's fields (`$metadata`, `$fault`, and whatever the body carries). */
export function awsError(res: AwsResponse, name: string, message: string, fields: Record<string, unknown> = {}): AwsError {
  const err = new Error(message || name) as AwsError;
  Object.assign(err, fields);
  err.name = name;
  err.$fault = res.status >= 500 ? 'server' : 'client';
  err.$metadata = { httpStatusCode: res.status, requestId: header(res, 'x-amzn-requestid') ?? header(res, 'x-amz-request-id') };
  return err;
}

/** The type part of `com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException` or `GoneException:http://...`. */
const typeName = (raw: string): string => raw.split(':')[0]!.split('#').at(-1)!.trim();

/** Errors of the JSON protocols (DynamoDB, SQS, SSM) and of REST-JSON (Lambda, SES v2, API Gateway management). */
export function jsonError(res: AwsResponse): AwsError {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(res.body.toString('utf8') || '{}');
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // not JSON: the header or the status names the error
  }
  const raw = header(res, 'x-amzn-errortype') ?? (typeof body.__type === 'string' ? body.__type : undefined) ?? (typeof body.code === 'string' ? body.code : undefined) ?? (typeof body.Code === 'string' ? body.Code : undefined);
  const name = raw ? typeName(raw) : res.status === 410 ? 'GoneException' : 'UnknownError';
  const message = String(body.message ?? body.Message ?? body.errorMessage ?? '');
  const { __type: _type, message: _m, Message: _M, ...fields } = body;
  return awsError(res, name, message, fields);
}

/** S3's XML errors: `<Error><Code>NoSuchKey</Code><Message>...</Message></Error>`. */
export function xmlError(res: AwsResponse): AwsError {
  const text = res.body.toString('utf8');
  const tag = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1];
  const name = tag('Code') ?? (res.status === 404 ? 'NotFound' : 'UnknownError');
  return awsError(res, name, tag('Message') ?? '');
}

/** The AWS endpoint of a service in a region, unless one is configured. */
export const regionalEndpoint = (prefix: string, region: string): string =>
  `https://${prefix}.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}`;
