// How many items the test's table holds: the "a refused request writes nothing"
// checks compare it before and after. Rate-limit counters are left out: counting
// every request, refused ones included, is their purpose (lib/http/ratelimit.ts).
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../../lib/aws';

export async function storedItemCount(): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await dynamo().send(
      new ScanCommand({
        TableName: process.env.TABLE_NAME!,
        FilterExpression: 'NOT begins_with(PK, :rate)',
        ExpressionAttributeValues: { ':rate': 'RATE#' },
        Select: 'COUNT',
        ExclusiveStartKey: start,
      }),
    );
    count += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return count;
}
