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
 * (the local stack's worker threads, tests) each see their own.
 */
export type DbMeter = { calls: number; writes: number };
const meters = new AsyncLocalStorage<{ meter: DbMeter; countWrites: boolean }>();

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
        const out = await next(args);
        // A write counts once it took effect: a failed condition or a cancelled transaction wrote nothing.
        if (scope?.countWrites && WRITE_COMMANDS.has(context.commandName ?? '')) scope.meter.writes += 1;
        return out;
      },
      { step: 'initialize', name: 'countDynamoCalls' },
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
  s3Client ??= new S3Client({ endpoint, region: config.region, forcePathStyle: Boolean(endpoint) });
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
