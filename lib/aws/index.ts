// The AWS calls the functions make, each reading its endpoint from the environment so
// the same code runs against AWS, LocalStack and the embedded emulators. They go through
// a thin signed-HTTP transport (./transport.ts: aws4's SigV4, node:http(s), the SDK's
// retry rules), not the SDK clients, which weighed ~400 kB in every bundle. The SDK stays
// for the operator CLI (its credential chain, lib/admin/dead_letters.ts) and the tests.
//
// Metering (below) counts what the SDK middleware counted before: DynamoDB calls per
// command, each attempt on the wire for the wait time, writes that took effect, capacity
// units, S3 requests by price class and queue messages.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { config } from '../config';
import {
  callDynamo,
  type BatchGetInput,
  type BatchWriteInput,
  type DeleteInput,
  type GetInput,
  type Operation,
  type Operations,
  type PutInput,
  type QueryInput,
  type ScanInput,
  type TransactWriteInput,
  type UpdateInput,
} from './dynamodb';
import { awsError, jsonError, regionalEndpoint, send, xmlError, type AwsResponse } from './transport';

export { observeRequests, setCredentialsProvider, type AwsError, type AwsRequest, type Credentials, type CredentialsProvider } from './transport';
export type * from './dynamodb';

/** DynamoDB calls made since the last reset, process-wide (benchmarks of in-process work). */
export const dbCalls = { count: 0, reset() { this.count = 0; } };

/**
 * DynamoDB calls of one request, and the writes among them that took effect.
 * Counted per async context, so requests handled concurrently in one process
 * (the local stack's worker threads, tests) each see their own. `waitMs` is the
 * time the request had at least one call on the wire (sent and not yet answered):
 * calls in parallel count once, so it is what the request spent waiting on the table.
 */
export type DbMeter = {
  calls: number;
  writes: number;
  waitMs?: number;
  inFlight?: number;
  since?: number;
  /** Capacity units DynamoDB reports (ReturnConsumedCapacity), counted only with EXPOSE_METRICS: bench/cost.ts prices them. */
  readUnits?: number;
  writeUnits?: number;
  /** S3 requests by price class (PUT/COPY/POST/LIST against GET and the rest), and queue messages sent. */
  s3Writes?: number;
  s3Reads?: number;
  messages?: number;
};
const meters = new AsyncLocalStorage<{ meter: DbMeter; countWrites: boolean }>();

/** Opens or closes a period with a call on the wire (bench/profile.ts reads the total through X-Db-Ms). */
function onWire(meter: DbMeter, delta: 1 | -1): void {
  const now = performance.now();
  const before = meter.inFlight ?? 0;
  meter.inFlight = before + delta;
  if (before === 0 && delta === 1) meter.since = now;
  if (meter.inFlight === 0 && delta === -1) meter.waitMs = (meter.waitMs ?? 0) + (now - (meter.since ?? now));
}

/** Runs `fn` with its DynamoDB calls counted on `meter`. */
export const meterDb = <T>(meter: DbMeter, fn: () => T): T => meters.run({ meter, countWrites: true }, fn);

/**
 * Runs `fn` without counting its writes: bookkeeping a refused request makes on
 * purpose (rate-limit counters), which the "a refused request writes nothing"
 * check of the bad-input suite must not see.
 */
export function uncountedWrites<T>(fn: () => T): T {
  const scope = meters.getStore();
  return scope ? meters.run({ meter: scope.meter, countWrites: false }, fn) : fn();
}

const WRITE_COMMANDS = new Set<Operation>(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
/** The commands that report their consumed capacity when asked (all of them). */
const CAPACITY_COMMANDS = new Set<Operation>([...WRITE_COMMANDS, 'GetItem', 'Query', 'Scan', 'BatchGetItem']);

type Capacity = { CapacityUnits?: number };
const unitsOf = (consumed: Capacity | Capacity[] | undefined): number =>
  Array.isArray(consumed) ? consumed.reduce((n, c) => n + (c.CapacityUnits ?? 0), 0) : (consumed?.CapacityUnits ?? 0);

/** Counts one queue message sent under the current meter (lib/queue). */
export function countMessage(): void {
  const meter = meters.getStore()?.meter;
  if (meter) meter.messages = (meter.messages ?? 0) + 1;
}

/** Sees each DynamoDB operation as it is called, its input as given (tests: which partitions a path reads). */
export type DynamoObserver = (op: Operation, input: unknown) => void;
const observers = new Set<DynamoObserver>();

/**
 * One DynamoDB operation, metered: the call counted once (retries included), each attempt
 * timed on the wire, the write counted once it took effect (a failed condition or a
 * cancelled transaction wrote nothing), capacity units when EXPOSE_METRICS asks for them.
 */
async function dynamoCall<Op extends Operation>(op: Op, given: Operations[Op][0]): Promise<Operations[Op][1]> {
  dbCalls.count += 1;
  const scope = meters.getStore();
  if (scope) scope.meter.calls += 1;
  for (const observe of observers) observe(op, given);
  const capacity = scope !== undefined && config.exposeMetrics && CAPACITY_COMMANDS.has(op);
  const input = capacity ? { ...given, ReturnConsumedCapacity: 'TOTAL' as const } : given;
  const meter = scope?.meter;
  const endpoint = config.endpointFor('DYNAMODB') ?? regionalEndpoint('dynamodb', config.region);
  const out = await callDynamo({ endpoint, region: config.region }, op, input, meter ? (phase) => onWire(meter, phase === 'start' ? 1 : -1) : undefined);
  if (scope?.countWrites && WRITE_COMMANDS.has(op)) scope.meter.writes += 1;
  if (capacity) {
    const units = unitsOf((out as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity);
    if (WRITE_COMMANDS.has(op)) scope.meter.writeUnits = (scope.meter.writeUnits ?? 0) + units;
    else scope.meter.readUnits = (scope.meter.readUnits ?? 0) + units;
  }
  return out;
}

/**
 * The document API of the table (what the SDK's DocumentClient offered): JS values in and
 * out. Errors are named after DynamoDB's (`err.name === 'ConditionalCheckFailedException'`,
 * `TransactionCanceledException` with `CancellationReasons`), with `$metadata.httpStatusCode`.
 */
const documentClient = {
  get: (input: GetInput) => dynamoCall('GetItem', input),
  put: (input: PutInput) => dynamoCall('PutItem', input),
  update: (input: UpdateInput) => dynamoCall('UpdateItem', input),
  delete: (input: DeleteInput) => dynamoCall('DeleteItem', input),
  query: (input: QueryInput) => dynamoCall('Query', input),
  scan: (input: ScanInput) => dynamoCall('Scan', input),
  batchGet: (input: BatchGetInput) => dynamoCall('BatchGetItem', input),
  batchWrite: (input: BatchWriteInput) => dynamoCall('BatchWriteItem', input),
  // An idempotency token per call, as the SDK fills it: the transport's retries of this
  // one call resend the same body, so a retry after a lost answer is applied once.
  transactWrite: (input: TransactWriteInput) => dynamoCall('TransactWriteItems', { ...input, ClientRequestToken: input.ClientRequestToken ?? randomUUID() }),
  /** Calls `observer` with every operation until the answer is called. */
  observe(observer: DynamoObserver): () => void {
    observers.add(observer);
    return () => observers.delete(observer);
  },
};
export type DocumentClient = typeof documentClient;
export const dynamo = (): DocumentClient => documentClient;

/** Is `err` the AWS error `name` (what `instanceof ConditionalCheckFailedException` asked of the SDK's errors)? */
export const isAwsError = (err: unknown, name: string): boolean => err instanceof Error && err.name === name;

// ---- S3: path-style against a configured endpoint (s3rver), virtual-hosted in AWS ----

/** RFC 3986 encoding of each segment of an object key, slashes kept. */
const encodeKey = (key: string) =>
  key.split('/').map((part) => encodeURIComponent(part).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)).join('/');

async function s3Request(method: 'GET' | 'PUT' | 'DELETE', bucket: string, key: string, opts: { body?: Buffer | string; headers?: Record<string, string> } = {}): Promise<AwsResponse> {
  const meter = meters.getStore()?.meter;
  // S3's price classes: PUT, COPY, POST and LIST requests, against GET and the others.
  if (meter) {
    if (method === 'PUT') meter.s3Writes = (meter.s3Writes ?? 0) + 1;
    else meter.s3Reads = (meter.s3Reads ?? 0) + 1;
  }
  const configured = config.endpointFor('S3');
  // Bucket names with dots do not match AWS's wildcard certificate: path-style there too, as the SDK does.
  const pathStyle = Boolean(configured) || bucket.includes('.');
  const endpoint = configured ?? (pathStyle ? regionalEndpoint('s3', config.region) : `https://${bucket}.s3.${config.region}.amazonaws.com`);
  return send(
    { service: 's3', region: config.region, endpoint, method, path: `${pathStyle ? `/${bucket}` : ''}/${encodeKey(key)}`, headers: opts.headers, body: opts.body },
    xmlError,
  );
}

export type PutObjectInput = { Bucket: string; Key: string; Body: Buffer | string; ContentType?: string; CacheControl?: string; ContentDisposition?: string };

/** S3 PutObject. */
export async function putObject(input: PutObjectInput): Promise<void> {
  const headers: Record<string, string> = {};
  if (input.ContentType) headers['Content-Type'] = input.ContentType;
  if (input.CacheControl) headers['Cache-Control'] = input.CacheControl;
  if (input.ContentDisposition) headers['Content-Disposition'] = input.ContentDisposition;
  await s3Request('PUT', input.Bucket, input.Key, { body: input.Body, headers });
}

/** S3 GetObject: the object's bytes; a missing one throws `NoSuchKey`. */
export async function getObject(input: { Bucket: string; Key: string }): Promise<Buffer> {
  return (await s3Request('GET', input.Bucket, input.Key)).body;
}

/** S3 DeleteObject. */
export async function deleteObject(input: { Bucket: string; Key: string }): Promise<void> {
  await s3Request('DELETE', input.Bucket, input.Key);
}

// ---- SQS, Lambda, SES, API Gateway management ----

/** SQS SendMessage (JSON protocol). Sent to the configured endpoint, else to the queue URL's host, as the SDK does. */
export async function sendMessage(input: { QueueUrl: string; MessageBody: string; DelaySeconds?: number }): Promise<{ MessageId?: string }> {
  const endpoint = config.endpointFor('SQS') ?? new URL(input.QueueUrl).origin;
  const res = await send(
    {
      service: 'sqs',
      region: config.region,
      endpoint,
      method: 'POST',
      path: '/',
      headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'AmazonSQS.SendMessage' },
      body: JSON.stringify(input),
    },
    jsonError,
  );
  return JSON.parse(res.body.toString('utf8') || '{}') as { MessageId?: string };
}

/** Lambda Invoke with InvocationType Event (the local stack's queue adapter, at LAMBDA_ENDPOINT). Answers the HTTP status (202). */
export async function invokeEvent(functionName: string, payload: string): Promise<number> {
  const res = await send(
    {
      service: 'lambda',
      region: config.region,
      endpoint: config.lambdaEndpoint,
      method: 'POST',
      path: `/2015-03-31/functions/${encodeURIComponent(functionName)}/invocations`,
      headers: { 'Content-Type': 'application/octet-stream', 'X-Amz-Invocation-Type': 'Event' },
      body: payload,
    },
    jsonError,
  );
  return res.status;
}

/** SSM GetParameters with decryption (JSON 1.1 protocol). */
export async function getParameters(names: string[]): Promise<unknown> {
  const res = await send(
    {
      service: 'ssm',
      region: config.region,
      endpoint: config.endpointFor('SSM') ?? regionalEndpoint('ssm', config.region),
      method: 'POST',
      path: '/',
      headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': 'AmazonSSM.GetParameters' },
      body: JSON.stringify({ Names: names, WithDecryption: true }),
    },
    jsonError,
  );
  return JSON.parse(res.body.toString('utf8') || '{}');
}

export type EmailInput = {
  FromEmailAddress: string;
  Destination: { ToAddresses: string[] };
  Content: { Simple: { Subject: { Data: string; Charset?: string }; Body: { Text?: { Data: string; Charset?: string }; Html?: { Data: string; Charset?: string } } } };
};

/** SES v2 SendEmail (REST JSON). */
export async function sendEmail(input: EmailInput): Promise<void> {
  await send(
    {
      service: 'ses',
      region: config.region,
      endpoint: config.endpointFor('SESV2') ?? regionalEndpoint('email', config.region),
      method: 'POST',
      path: '/v2/email/outbound-emails',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    },
    jsonError,
  );
}

/**
 * API Gateway's Management API of the WebSocket API, at `endpoint` (its stage included):
 * PostToConnection with `data`, or DeleteConnection without. A connection gone answers
 * 410, thrown as `GoneException`.
 */
export async function connectionRequest(endpoint: string, connectionId: string, data?: Buffer): Promise<void> {
  await send(
    {
      service: 'execute-api',
      region: config.region,
      endpoint,
      method: data ? 'POST' : 'DELETE',
      path: `/@connections/${encodeURIComponent(connectionId)}`,
      ...(data ? { body: data, headers: { 'Content-Type': 'application/octet-stream' } } : {}),
    },
    (res) => (res.status === 410 ? awsError(res, 'GoneException', res.body.toString('utf8')) : jsonError(res)),
  );
}

/**
 * API Gateway's GetConnection: whether a WebSocket connection is still open. `gone` only on
 * its 410; any other failure (an endpoint that does not serve it) throws, and callers count
 * the connection as open rather than free a slot they cannot prove unused.
 */
export async function connectionState(endpoint: string, connectionId: string): Promise<'open' | 'gone'> {
  try {
    await send(
      { service: 'execute-api', region: config.region, endpoint, method: 'GET', path: `/@connections/${encodeURIComponent(connectionId)}` },
      (res) => (res.status === 410 ? awsError(res, 'GoneException', res.body.toString('utf8')) : jsonError(res)),
    );
    return 'open';
  } catch (err) {
    if (isAwsError(err, 'GoneException')) return 'gone';
    throw err;
  }
}
