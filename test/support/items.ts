// How many items the test's table holds: the "a refused request writes nothing"
// checks compare it before and after. Rate-limit counters are left out: counting
// every request, refused ones included, is their purpose (lib/http/ratelimit.ts).
import { dynamo, type QueryOutput, type ScanInput as FullScanInput } from '../../lib/aws';

type ScanInput = Omit<FullScanInput, 'TableName' | 'ExclusiveStartKey'>;
type ScanCommandOutput = QueryOutput;

/** Every page of a scan of the test's own table, each page's answer handed to `each`. */
export async function scanTable(input: ScanInput, each: (page: ScanCommandOutput) => void): Promise<void> {
  let start: Record<string, unknown> | undefined;
  do {
    const out = await dynamo().scan({ ...input, TableName: process.env.TABLE_NAME!, ExclusiveStartKey: start });
    each(out);
    start = out.LastEvaluatedKey;
  } while (start);
}

export async function storedItemCount(): Promise<number> {
  let count = 0;
  await scanTable({ FilterExpression: 'NOT begins_with(PK, :rate)', ExpressionAttributeValues: { ':rate': 'RATE#' }, Select: 'COUNT' }, (out) => {
    count += out.Count ?? 0;
  });
  return count;
}
