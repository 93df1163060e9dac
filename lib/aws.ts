// AWS clients, each reading its endpoint from the environment so the same code
// runs against AWS, LocalStack and the embedded emulators.
import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { config } from './config';

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

const WRITE_COMMANDS = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);
/** The commands that report their consumed capacity when asked. */
const CAPACITY_COMMANDS = new Set([...WRITE_COMMANDS, 'GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand', 'TransactGetItemsCommand']);

type Capacity = { CapacityUnits?: number };
const unitsOf = (consumed: Capacity | Capacity[] | undefined): number =>
  Array.isArray(consumed) ? consumed.reduce((n, c) => n + (c.CapacityUnits ?? 0), 0) : (consumed?.CapacityUnits ?? 0);

/** Counts one queue message sent under the current meter (lib/queue). */
export function countMessage(): void {
  const meter = meters.getStore()?.meter;
  if (meter) meter.messages = (meter.messages ?? 0) + 1;
}

let ddb: DynamoDBDocumentClient | undefined;
let ddbKey = '';
export const dynamo = (): DynamoDBDocumentClient => {
  const endpoint = config.endpointFor('DYNAMODB');
  const key = `${endpoint}|${config.region}`;
  if (!ddb || key !== ddbKey) {
    const base = new DynamoDBClient({ endpoint, region: config.region, maxAttempts: 4 });
    base.middlewareStack.add(
      (next, context) => async (args) => {
        dbCalls.count += 1;
        const scope = meters.getStore();
        if (scope) scope.meter.calls += 1;
        const command = context.commandName ?? '';
        const capacity = scope !== undefined && config.exposeMetrics && CAPACITY_COMMANDS.has(command);
        if (capacity) (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
        const out = await next(args);
        // A write counts once it took effect: a failed condition or a cancelled transaction wrote nothing.
        if (scope?.countWrites && WRITE_COMMANDS.has(command)) scope.meter.writes += 1;
        if (capacity) {
          const units = unitsOf((out.output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity);
          if (WRITE_COMMANDS.has(command)) scope.meter.writeUnits = (scope.meter.writeUnits ?? 0) + units;
          else scope.meter.readUnits = (scope.meter.readUnits ?? 0) + units;
        }
        return out;
      },
      { step: 'initialize', name: 'countDynamoCalls' },
    );
    // Around the send alone (each retry included), below serialisation and signing.
    base.middlewareStack.add(
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
      { step: 'deserialize', name: 'timeDynamoCalls', priority: 'low' },
    );
    ddb = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
      unmarshallOptions: { wrapNumbers: false },
    });
    ddbKey = key;
  }
  return ddb;
};

let s3Client: S3Client | undefined;
export const s3 = (): S3Client => {
  const endpoint = config.endpointFor('S3');
  if (!s3Client) {
    s3Client = new S3Client({ endpoint, region: config.region, forcePathStyle: Boolean(endpoint) });
    s3Client.middlewareStack.add(
      (next, context) => async (args) => {
        const meter = meters.getStore()?.meter;
        if (meter) {
          // S3's price classes: PUT, COPY, POST and LIST requests, against GET and the others.
          if (/^(Put|Copy|CreateMultipart|UploadPart|CompleteMultipart|List)/.test(context.commandName ?? '')) meter.s3Writes = (meter.s3Writes ?? 0) + 1;
          else meter.s3Reads = (meter.s3Reads ?? 0) + 1;
        }
        return next(args);
      },
      { step: 'initialize', name: 'countS3Calls' },
    );
  }
  return s3Client;
};

let sqsClient: SQSClient | undefined;
export const sqs = (): SQSClient => {
  sqsClient ??= new SQSClient({ endpoint: config.endpointFor('SQS'), region: config.region });
  return sqsClient;
};

let lambdaClient: LambdaClient | undefined;
export const lambda = (): LambdaClient => {
  lambdaClient ??= new LambdaClient({ endpoint: config.lambdaEndpoint, region: config.region });
  return lambdaClient;
};

let sesClient: SESv2Client | undefined;
export const ses = (): SESv2Client => {
  sesClient ??= new SESv2Client({ endpoint: config.endpointFor('SESV2'), region: config.region });
  return sesClient;
};
