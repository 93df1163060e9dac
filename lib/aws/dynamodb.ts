// The shapes of DynamoDB's document API as lib/db uses it (plain JS values in and out, as lib-dynamodb's
// DocumentClient takes and answers them): the operations lib/aws sends, each with its input and output.

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
