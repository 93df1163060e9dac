// The AWS calls the functions make, through the AWS SDK v3 clients (DynamoDB through lib-dynamodb's document
// client; S3, SQS, Lambda, SSM, SES v2 and the API Gateway Management API through their own), each built once per
// container on its first use, with explicit timeouts and the standard retry mode, its endpoint read from the
// environment so that the same code runs against AWS, LocalStack and the embedded emulators (./clients.ts).
//
// Metering (below) counts what the benches and tests read: DynamoDB calls per command, each attempt on the wire
// for the wait time (SDK middleware inside the retry loop), writes that took effect, capacity units, S3 requests
// by price class and queue messages.
import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ApiGatewayManagementApiClient, DeleteConnectionCommand, GetConnectionCommand, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetParametersCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { MiddlewareStack } from '@smithy/types';
import { config } from '../config';
import { baseSettings, clientFor } from './clients';
import type {
  BatchGetInput,
  BatchWriteInput,
  DeleteInput,
  GetInput,
  Operation,
  Operations,
  PutInput,
  QueryInput,
  ScanInput,
  TransactWriteInput,
  UpdateInput,
} from './dynamodb';

export { setCredentialsProvider, useRequestTimeout, type Credentials, type CredentialsProvider } from './clients';
export type * from './dynamodb';

/** An AWS error as the SDK throws it: named after the error type, with its `$metadata`. */
export type AwsError = Error & { $metadata: { httpStatusCode?: number; requestId?: string; attempts?: number }; $fault?: 'client' | 'server'; [field: string]: unknown };

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

/** Sees each request as the SDK builds it, once per call (retries not included); may answer a function called once it is done. Tests. */
export type AwsRequest = { service: string; headers: Record<string, string>; body: unknown };
export type RequestObserver = (req: AwsRequest) => (() => void) | void;
const requestObservers = new Set<RequestObserver>();

/** Calls `observer` with every request sent until the answer is called. */
export function observeRequests(observer: RequestObserver): () => void {
  requestObservers.add(observer);
  return () => requestObservers.delete(observer);
}

/** The middleware every client carries: the request observers (tests), and each attempt timed on the wire (the meter). */
function instrument(stack: MiddlewareStack<any, any>, service: string): void {
  stack.add(
    (next) => async (args) => {
      if (requestObservers.size === 0) return next(args);
      const request = args.request as { headers?: Record<string, string>; body?: unknown };
      const done = [...requestObservers].map((observe) => observe({ service, headers: request.headers ?? {}, body: request.body }));
      try {
        return await next(args);
      } finally {
        for (const finish of done) finish?.();
      }
    },
    { step: 'build', name: 'tootlessObserve', override: true },
  );
  stack.add(
    (next) => async (args) => {
      const meter = meters.getStore()?.meter;
      if (!meter) return next(args);
      onWire(meter, 1);
      try {
        return await next(args);
      } finally {
        onWire(meter, -1);
      }
    },
    { step: 'deserialize', name: 'tootlessOnWire', override: true },
  );
}

const MARSHALL = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;
const UNMARSHALL = { wrapNumbers: false } as const;

/** The table's document client: up to 4 attempts, as the SDK's DynamoDB default. */
const documents = () =>
  clientFor('dynamodb', config.endpointFor('DYNAMODB'), () => {
    const client = DynamoDBDocumentClient.from(new DynamoDBClient({ ...baseSettings({ endpoint: config.endpointFor('DYNAMODB') }), maxAttempts: 4 }), {
      marshallOptions: MARSHALL,
      unmarshallOptions: UNMARSHALL,
    });
    instrument(client.middlewareStack, 'dynamodb');
    return client;
  });

const COMMANDS = {
  GetItem: GetCommand,
  PutItem: PutCommand,
  UpdateItem: UpdateCommand,
  DeleteItem: DeleteCommand,
  Query: QueryCommand,
  Scan: ScanCommand,
  BatchGetItem: BatchGetCommand,
  BatchWriteItem: BatchWriteCommand,
  TransactWriteItems: TransactWriteCommand,
} as const;

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
  const Command = COMMANDS[op] as unknown as new (input: unknown) => Parameters<ReturnType<typeof documents>['send']>[0];
  // The answer without the SDK's $metadata: what lib/db reads, and compares, is the operation's output alone.
  const { $metadata: _metadata, ...out } = (await documents().send(new Command(input))) as Operations[Op][1] & { $metadata?: unknown };
  if (scope?.countWrites && WRITE_COMMANDS.has(op)) scope.meter.writes += 1;
  if (capacity) {
    const units = unitsOf((out as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity);
    if (WRITE_COMMANDS.has(op)) scope.meter.writeUnits = (scope.meter.writeUnits ?? 0) + units;
    else scope.meter.readUnits = (scope.meter.readUnits ?? 0) + units;
  }
  return out as Operations[Op][1];
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
  // The SDK gives each call an idempotency token (ClientRequestToken) and sends it again with each retry of that
  // call, so a retry after an answer lost on the wire is applied once.
  transactWrite: (input: TransactWriteInput) => dynamoCall('TransactWriteItems', input),
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

const s3 = () =>
  clientFor('s3', config.endpointFor('S3'), () => {
    const endpoint = config.endpointFor('S3');
    const client = new S3Client({ ...baseSettings({ endpoint, s3: true }), forcePathStyle: Boolean(endpoint) });
    instrument(client.middlewareStack, 's3');
    return client;
  });

/** Counts one S3 request by its price class: PUT, COPY, POST and LIST, against GET and the others. */
function countS3(write: boolean): void {
  const meter = meters.getStore()?.meter;
  if (!meter) return;
  if (write) meter.s3Writes = (meter.s3Writes ?? 0) + 1;
  else meter.s3Reads = (meter.s3Reads ?? 0) + 1;
}

export type PutObjectInput = { Bucket: string; Key: string; Body: Buffer | string; ContentType?: string; CacheControl?: string; ContentDisposition?: string };

/** S3 PutObject. */
export async function putObject(input: PutObjectInput): Promise<void> {
  countS3(true);
  await s3().send(new PutObjectCommand(input));
}

/** S3 GetObject: the object's bytes; a missing one throws `NoSuchKey`. */
export async function getObject(input: { Bucket: string; Key: string }): Promise<Buffer> {
  countS3(false);
  const out = await s3().send(new GetObjectCommand(input));
  return Buffer.from(await out.Body!.transformToByteArray());
}

/** S3 DeleteObject. */
export async function deleteObject(input: { Bucket: string; Key: string }): Promise<void> {
  countS3(false);
  await s3().send(new DeleteObjectCommand(input));
}

// ---- SQS, Lambda, SSM, SES, API Gateway management ----

const sqs = () =>
  clientFor('sqs', config.endpointFor('SQS'), () => {
    const client = new SQSClient(baseSettings({ endpoint: config.endpointFor('SQS') }));
    instrument(client.middlewareStack, 'sqs');
    return client;
  });

/** SQS SendMessage. Sent to the configured endpoint, else to the queue URL's own host, as the SDK does. */
export async function sendMessage(input: { QueueUrl: string; MessageBody: string; DelaySeconds?: number }): Promise<{ MessageId?: string }> {
  const out = await sqs().send(new SendMessageCommand(input));
  return { MessageId: out.MessageId };
}

const lambda = () =>
  clientFor('lambda', config.lambdaEndpoint, () => {
    const client = new LambdaClient(baseSettings({ endpoint: config.lambdaEndpoint }));
    instrument(client.middlewareStack, 'lambda');
    return client;
  });

/** Lambda Invoke with InvocationType Event (the local stack's queue adapter, at LAMBDA_ENDPOINT). Answers the HTTP status (202). */
export async function invokeEvent(functionName: string, payload: string): Promise<number> {
  const out = await lambda().send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'Event', Payload: Buffer.from(payload) }));
  return out.StatusCode ?? 202;
}

const ssm = () =>
  clientFor('ssm', config.endpointFor('SSM'), () => {
    const client = new SSMClient(baseSettings({ endpoint: config.endpointFor('SSM') }));
    instrument(client.middlewareStack, 'ssm');
    return client;
  });

/** SSM GetParameters with decryption: `{ Parameters, InvalidParameters }` as the API answers. */
export async function getParameters(names: string[]): Promise<unknown> {
  const { $metadata: _metadata, ...out } = await ssm().send(new GetParametersCommand({ Names: names, WithDecryption: true }));
  return out;
}

export type EmailInput = {
  FromEmailAddress: string;
  Destination: { ToAddresses: string[] };
  Content: { Simple: { Subject: { Data: string; Charset?: string }; Body: { Text?: { Data: string; Charset?: string }; Html?: { Data: string; Charset?: string } } } };
};

const ses = () =>
  clientFor('sesv2', config.endpointFor('SESV2'), () => {
    const client = new SESv2Client(baseSettings({ endpoint: config.endpointFor('SESV2') }));
    instrument(client.middlewareStack, 'ses');
    return client;
  });

/** SES v2 SendEmail. */
export async function sendEmail(input: EmailInput): Promise<void> {
  await ses().send(new SendEmailCommand(input));
}

/** The Management API client of the WebSocket API at `endpoint` (its stage included): one per endpoint. */
const management = (endpoint: string) =>
  clientFor('execute-api', endpoint, () => {
    const client = new ApiGatewayManagementApiClient(baseSettings({ endpoint }));
    instrument(client.middlewareStack, 'execute-api');
    return client;
  });

/**
 * API Gateway's Management API of the WebSocket API, at `endpoint` (its stage included):
 * PostToConnection with `data`, or DeleteConnection without. A connection gone answers
 * 410, thrown as `GoneException`.
 */
export async function connectionRequest(endpoint: string, connectionId: string, data?: Buffer): Promise<void> {
  const client = management(endpoint);
  try {
    if (data) await client.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: data }));
    else await client.send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
  } catch (err) {
    throw goneNamed(err);
  }
}

/** A bare 410 (serverless offline's answer for a connection gone) is GoneException, as API Gateway names it. */
function goneNamed(err: unknown): unknown {
  const status = (err as Partial<AwsError> | undefined)?.$metadata?.httpStatusCode;
  if (err instanceof Error && status === 410 && err.name !== 'GoneException') err.name = 'GoneException';
  return err;
}

/**
 * API Gateway's GetConnection: whether a WebSocket connection is still open. `gone` only on
 * its 410; any other failure (an endpoint that does not serve it) throws, and callers count
 * the connection as open rather than free a slot they cannot prove unused.
 */
export async function connectionState(endpoint: string, connectionId: string): Promise<'open' | 'gone'> {
  try {
    await management(endpoint).send(new GetConnectionCommand({ ConnectionId: connectionId }));
    return 'open';
  } catch (err) {
    if (isAwsError(goneNamed(err), 'GoneException')) return 'gone';
    throw err;
  }
}
