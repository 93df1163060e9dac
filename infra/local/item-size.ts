// DynamoDB's 400 KB item limit, measured as DynamoDB measures it. dynalite counts a
// string's UTF-16 code units where DynamoDB counts UTF-8 bytes, so an item of 300,000
// `é` (600 KB) passes locally and fails in AWS. Every size check of dynalite's
// (PutItem, UpdateItem's result, BatchWriteItem, and so the transactions built on
// them in ./transactions.ts) goes through its exported `itemSize`, which this replaces.
import { createRequire } from 'node:module';
import { attributeItemSize } from '../../lib/db/item_size';

type AttributeValue = Record<string, unknown>;

const require = createRequire(import.meta.url);
const db = require('dynalite/db/index.js') as { itemSize: (item: Record<string, AttributeValue>, ...rest: unknown[]) => number };

/** An item's size as DynamoDB counts it (bench/cost.ts uses it for the GSI writes dynalite does not charge). */
export const itemSize = attributeItemSize;

let applied = false;

/** Makes dynalite measure items in UTF-8 bytes. Its other, internal uses of the size (capacity units, page sizes) are left as they are. */
export function measureItemsAsDynamoDb(): void {
  if (applied) return;
  applied = true;
  const original = db.itemSize;
  db.itemSize = (item, ...rest) => (rest.length === 0 ? Math.max(itemSize(item), original(item)) : original(item, ...rest));
}
