// DynamoDB's document API over the signed transport (./transport.ts): plain JS values in
// and out, marshalled as the SDK's DocumentClient did (@aws-sdk/util-dynamodb, with its
// options), sent as the JSON 1.0 protocol (`X-Amz-Target: DynamoDB_20120810.<Op>`).
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { jsonError, send, type AwsResponse } from './transport';

/** An item, a key, or a map of expression values, as JS values (what the DocumentClient took). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AttributeMap = Record<string, any>;
type Names = Record<string, string>;

type Expressions = { ConditionExpression?: string; ExpressionAttributeNames?: Names; ExpressionAttributeValues?: AttributeMap };
type ReturnValues = 'NONE' | 'ALL_OLD' | 'UPDATED_OLD' | 'ALL_NEW' | 'UPDATED_NEW';
type OnConditionFailure = { ReturnValuesOnConditionCheckFailure?: 'ALL_OLD' | 'NONE' };
export type ConsumedCapacity = { TableName?: string; CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };
type Capacity = { ReturnConsumedCapacity?: 'INDEXES' | 'TOTAL' | 'NONE' };

export type GetInput = Capacity & { TableName: string; Key: AttributeMap; ConsistentRead?: boolean; ProjectionExpression?: string; ExpressionAttributeNames?: Names };
export type GetOutput = { Item?: AttributeMap; ConsumedCapacity?: ConsumedCapacity };
export type PutInput = Capacity & Expressions & OnConditionFailure & { TableName: string; Item: AttributeMap; ReturnValues?: 'NONE' | 'ALL_OLD' };
export type UpdateInput = Capacity & Expressions & OnConditionFailure & { TableName: string; Key: AttributeMap; UpdateExpression?: string; ReturnValues?: ReturnValues };
export type DeleteInput = Capacity & Expressions & OnConditionFailure & { TableName: string; Key: AttributeMap; ReturnValues?: 'NONE' | 'ALL_OLD' };
export type WriteOutput = { Attributes?: AttributeMap; ConsumedCapacity?: ConsumedCapacity };
export type QueryInput = Capacity & {
  TableName: string;
  IndexName?: string;
  KeyConditionExpression?: string;
  FilterExpression?: string;
  ProjectionExpression?: string;
  ExpressionAttributeNames?: Names;
  ExpressionAttributeValues?: AttributeMap;
  ExclusiveStartKey?: AttributeMap;
  Limit?: number;
  ScanIndexForward?: boolean;
  ConsistentRead?: boolean;
  Select?: 'ALL_ATTRIBUTES' | 'ALL_PROJECTED_ATTRIBUTES' | 'SPECIFIC_ATTRIBUTES' | 'COUNT';
};
export type ScanInput = Omit<QueryInput, 'KeyConditionExpression' | 'ScanIndexForward'> & { Segment?: number; TotalSegments?: number };
export type QueryOutput = { Items?: AttributeMap[]; Count?: number; ScannedCount?: number; LastEvaluatedKey?: AttributeMap; ConsumedCapacity?: ConsumedCapacity };
export type KeysAndAttributes = { Keys: AttributeMap[]; ProjectionExpression?: string; ExpressionAttributeNames?: Names; ConsistentRead?: boolean };
export type BatchGetInput = Capacity & { RequestItems: Record<string, KeysAndAttributes> };
export type BatchGetOutput = { Responses?: Record<string, AttributeMap[]>; UnprocessedKeys?: Record<string, KeysAndAttributes>; ConsumedCapacity?: ConsumedCapacity[] };
export type WriteRequest = { PutRequest?: { Item: AttributeMap }; DeleteRequest?: { Key: AttributeMap } };
export type BatchWriteInput = Capacity & { RequestItems: Record<string, WriteRequest[]> };
export type BatchWriteOutput = { UnprocessedItems?: Record<string, WriteRequest[]>; ConsumedCapacity?: ConsumedCapacity[] };
export type TransactWriteItem = {
  ConditionCheck?: Expressions & OnConditionFailure & { TableName: string; Key: AttributeMap; ConditionExpression: string };
  Put?: Expressions & OnConditionFailure & { TableName: string; Item: AttributeMap | undefined };
  Delete?: Expressions & OnConditionFailure & { TableName: string; Key: AttributeMap };
  Update?: Expressions & OnConditionFailure & { TableName: string; Key: AttributeMap; UpdateExpression: string };
};
export type TransactWriteInput = Capacity & { TransactItems: TransactWriteItem[]; ClientRequestToken?: string };
export type TransactWriteOutput = { ConsumedCapacity?: ConsumedCapacity[] };
/** One reason of a TransactionCanceledException (`err.CancellationReasons`), in the transaction's order. */
export type CancellationReason = { Code?: string; Message?: string; Item?: AttributeMap };

/** What each operation takes and answers. */
export type Operations = {
  GetItem: [GetInput, GetOutput];
  PutItem: [PutInput, WriteOutput];
  UpdateItem: [UpdateInput, WriteOutput];
  DeleteItem: [DeleteInput, WriteOutput];
  Query: [QueryInput, QueryOutput];
  Scan: [ScanInput, QueryOutput];
  BatchGetItem: [BatchGetInput, BatchGetOutput];
  BatchWriteItem: [BatchWriteInput, BatchWriteOutput];
  TransactWriteItems: [TransactWriteInput, TransactWriteOutput];
};
export type Operation = keyof Operations;

const MARSHALL = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;
const UNMARSHALL = { wrapNumbers: false } as const;

/** Members holding one attribute map, and members holding a list of them, wherever they sit in an input or output. */
const MAPS = new Set(['Item', 'Key', 'ExpressionAttributeValues', 'ExclusiveStartKey', 'LastEvaluatedKey', 'Attributes']);
const LISTS = new Set(['Keys', 'Items']);

/**
 * Converts the attribute maps of a request or an answer, the rest left as it is: `Item`,
 * `Key`, `Keys`, ... at any depth (TransactItems, RequestItems, UnprocessedKeys,
 * CancellationReasons), and BatchGetItem's `Responses` (a list of items per table).
 */
function convert(value: unknown, map: (m: AttributeMap) => AttributeMap, member?: string): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (member !== undefined && MAPS.has(member)) return map(value as AttributeMap);
  if (member !== undefined && LISTS.has(member) && Array.isArray(value)) return value.map((m: AttributeMap) => map(m));
  if (member === 'Responses' && !Array.isArray(value)) {
    return Object.fromEntries(Object.entries(value).map(([table, items]) => [table, (items as AttributeMap[]).map((m) => map(m))]));
  }
  if (Array.isArray(value)) return value.map((v) => convert(v, map));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v, map, k)]));
}

export const marshallInput = (input: object): unknown => convert(input, (m) => marshall(m, MARSHALL) as AttributeMap);
export const unmarshallOutput = (output: object): unknown => convert(output, (m) => unmarshall(m as never, UNMARSHALL));

/** DynamoDB's errors; the items in a TransactionCanceledException's reasons (ReturnValuesOnConditionCheckFailure) come as JS values. */
export function dynamoError(res: AwsResponse) {
  const err = jsonError(res);
  if (Array.isArray(err.CancellationReasons)) err.CancellationReasons = unmarshallOutput(err.CancellationReasons);
  return err;
}

export type DynamoTarget = { endpoint: string; region: string };

/** One operation, marshalled, sent (retried up to 4 attempts, as the SDK's DynamoDB client), answered unmarshalled. */
export async function callDynamo<Op extends Operation>(
  target: DynamoTarget,
  op: Op,
  input: Operations[Op][0],
  onAttempt?: (phase: 'start' | 'end') => void,
): Promise<Operations[Op][1]> {
  const res = await send(
    {
      service: 'dynamodb',
      region: target.region,
      endpoint: target.endpoint,
      method: 'POST',
      path: '/',
      headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': `DynamoDB_20120810.${op}` },
      body: JSON.stringify(marshallInput(input)),
      maxAttempts: 4,
      onAttempt,
    },
    dynamoError,
  );
  return unmarshallOutput(JSON.parse(res.body.toString('utf8') || '{}') as object) as Operations[Op][1];
}
