// DynamoDB's 400 KB item limit, measured as DynamoDB measures it: each attribute's
// name and value in UTF-8 bytes, a number about one byte per two significant digits
// plus one, a list or map 3 bytes plus 1 per element, a boolean or null 1 byte
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html).
// Every Put goes through `assertItemFits` (./table.ts) so an item that would be refused
// is refused here, by name (ItemTooLarge), not as an SDK ValidationException after a
// round trip; the local emulator measures the same way (infra/local/item-size.ts).
import { ItemTooLarge } from '../errors';

/** DynamoDB's limit is 409,600 bytes; ours leaves a margin for the estimate of numbers. */
export const MAX_ITEM_BYTES = 400_000;

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/** A number takes about one byte per two significant digits, plus one. */
const numberSize = (text: string) => {
  const digits = text.replace(/^[-+]/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
};

type AttributeValue = Record<string, unknown>;

/** One attribute value in the wire form (`{ S: ... }`, `{ M: ... }`). */
function attributeSize(value: AttributeValue): number {
  const [type, v] = Object.entries(value)[0] ?? ['NULL', true];
  switch (type) {
    case 'S': return utf8(String(v));
    case 'N': return numberSize(String(v));
    case 'B': return Buffer.from(String(v), 'base64').length;
    case 'SS': return (v as string[]).reduce((n, s) => n + utf8(s), 0);
    case 'NS': return (v as string[]).reduce((n, s) => n + numberSize(s), 0);
    case 'BS': return (v as string[]).reduce((n, s) => n + Buffer.from(s, 'base64').length, 0);
    case 'L': return 3 + (v as AttributeValue[]).reduce((n, e) => n + 1 + attributeSize(e), 0);
    case 'M': return 3 + Object.entries(v as Record<string, AttributeValue>).reduce((n, [k, e]) => n + 1 + utf8(k) + attributeSize(e), 0);
    default: return 1; // BOOL, NULL
  }
}

/** An item in the wire form, as DynamoDB counts it. */
export const attributeItemSize = (item: Record<string, AttributeValue>) =>
  Object.entries(item).reduce((n, [name, value]) => n + utf8(name) + attributeSize(value), 0);

/** One value as the document client marshals it (undefined values are removed, ../aws/dynamodb.ts). */
function valueSize(v: unknown): number {
  if (typeof v === 'string') return utf8(v);
  if (typeof v === 'number' || typeof v === 'bigint') return numberSize(String(v));
  if (v === null || typeof v === 'boolean') return 1;
  if (v instanceof Uint8Array) return v.byteLength;
  if (v instanceof Set) return [...v].reduce((n: number, e) => n + valueSize(e), 0);
  if (Array.isArray(v)) return 3 + v.reduce((n: number, e) => n + 1 + valueSize(e), 0);
  if (typeof v === 'object') return 3 + mapSize(v as Record<string, unknown>);
  return 0;
}

const mapSize = (map: Record<string, unknown>) =>
  Object.entries(map).reduce((n, [k, e]) => (e === undefined ? n : n + 1 + utf8(k) + valueSize(e)), 0);

/** An item as the document client takes it (plain values), as DynamoDB counts it. */
export const itemSize = (item: Record<string, unknown>): number =>
  Object.entries(item).reduce((n, [name, value]) => (value === undefined ? n : n + utf8(name) + valueSize(value)), 0);

/** Throws ItemTooLarge when the item would be over the limit: a write that could never succeed is not sent. */
export function assertItemFits(item: Record<string, unknown>): void {
  const bytes = itemSize(item);
  if (bytes > MAX_ITEM_BYTES) throw new ItemTooLarge(`${String(item.PK)}|${String(item.SK)}`, bytes);
}
