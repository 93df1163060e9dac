// The AWS calls the functions make, through the AWS SDK v3 clients (DynamoDB through lib-dynamodb's document
// client; S3, SQS, Lambda, SSM, SES v2 and the API Gateway Management API through their own), each built once per
// container on its first use, with explicit timeouts and the standard retry mode, its endpoint read from the
// environment so that the same code runs against AWS, LocalStack and the embedded emulators (./clients.ts).
//
// Metering (below) counts what the benches and tests read: DynamoDB calls per command, each attempt on the wire
// for the wait time (SDK middleware inside the retry loop), writes that took effect, capacity units, S3 requests
// by price class and queue messages.
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
import { dbCalls, instrument, meters } from './meter';

export { setCredentialsProvider, useRequestTimeout, type Credentials, type CredentialsProvider } from './clients';
export type * from './dynamodb';
export {
  countMessage,
  dbCalls,
  isAwsError,
  meterDb,
  observeRequests,
  uncountedWrites,
  type AwsError,
  type AwsRequest,
  type DbMeter,
  type RequestObserver,
} from './meter';

const WRITE_COMMANDS = new Set<Operation>(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
/** The commands that report their consumed capacity when asked (all of them). */
const CAPACITY_COMMANDS = new Set<Operation>([...WRITE_COMMANDS, 'GetItem', 'Query', 'Scan', 'BatchGetItem']);

type Capacity = { CapacityUnits?: number };
const unitsOf = (consumed: Capacity | Capacity[] | undefined): number =>
  Array.isArray(consumed) ? consumed.reduce((n, c) => n + (c.CapacityUnits ?? 0), 0) : (consumed?.CapacityUnits ?? 0);

/** Sees each DynamoDB operation as it is called, its input as given (tests: which partitions a path reads). */
export type DynamoObserver = (op: Operation, input: unknown) => void;
const observers = new Set<DynamoObserver>();

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
