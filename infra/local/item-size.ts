// DynamoDB's 400 KB item limit, measured as DynamoDB measures it. dynalite counts a
// string's UTF-16 code units where DynamoDB counts UTF-8 bytes, so an item of 300,000
// `é` (600 KB) passes locally and fails in AWS. Every size check of dynalite's
// (PutItem, UpdateItem's result, BatchWriteItem, and so the transactions built on
// them in ./transactions.ts) goes through its exported `itemSize`, which this replaces.
import { createRequire } from 'node:module';

type AttributeValue = Record<string, unknown>;

const require = createRequire(import.meta.url);
const db = require('dynalite/db/index.js') as { itemSize: (item: Record<string, AttributeValue>, ...rest: unknown[]) => number };

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/** A number takes about one byte per two significant digits, plus one. */
const numberSize = (text: string) => {
  const digits = text.replace(/^[-+]/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
};

function valueSize(value: AttributeValue): number {
  const [type, v] = Object.entries(value)[0] ?? ['NULL', true];
  switch (type) {
    case 'S': return utf8(String(v));
    case 'N': return numberSize(String(v));
    case 'B': return Buffer.from(String(v), 'base64').length;
    case 'SS': return (v as string[]).reduce((n, s) => n + utf8(s), 0);
    case 'NS': return (v as string[]).reduce((n, s) => n + numberSize(s), 0);
    case 'BS': return (v as string[]).reduce((n, s) => n + Buffer.from(s, 'base64').length, 0);
    case 'L': return 3 + (v as AttributeValue[]).reduce((n, e) => n + 1 + valueSize(e), 0);
    case 'M': return 3 + Object.entries(v as Record<string, AttributeValue>).reduce((n, [k, e]) => n + 1 + utf8(k) + valueSize(e), 0);
    default: return 1; // BOOL, NULL
  }
}

/** An item's size as DynamoDB counts it (bench/cost.ts uses it for the GSI writes dynalite does not charge). */
export const itemSize = (item: Record<string, AttributeValue>) =>
  Object.entries(item).reduce((n, [name, value]) => n + utf8(name) + valueSize(value), 0);

let applied = false;

/** Makes dynalite measure items in UTF-8 bytes. Its other, internal uses of the size (capacity units, page sizes) are left as they are. */
export function measureItemsAsDynamoDb(): void {
  if (applied) return;
  applied = true;
  const original = db.itemSize;
  db.itemSize = (item, ...rest) => (rest.length === 0 ? Math.max(itemSize(item), original(item)) : original(item, ...rest));
}
