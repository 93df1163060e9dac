// Items an invocation knows without reading them, because it has just written them (or
// knows they cannot exist): a page render (lib/db/status_page.ts) takes them from here
// instead of the table. Posting knows its author as the counter update answered it and
// knows a status that did not exist a moment ago has no favourite, reblog, bookmark or pin
// of its author: the answer to a post is rendered with no read at all.
import { factInRequest, setFactInRequest } from '../request_scope';
import type { Key } from './keys';
import { keyString, type Item } from './table';

const ABSENT = Symbol('absent');
const factKey = (key: Key) => `item:${keyString(key)}`;

/** Records, for the rest of this invocation, an item as written (or `undefined`: known not to exist). */
export function knowItem(key: Key, item: Item | undefined): void {
  setFactInRequest(factKey(key), item ?? ABSENT);
}

/** The item under `key` if this invocation knows it: `{ item }` (undefined when known absent), or undefined when unknown. */
export function knownItem(key: Key): { item: Item | undefined } | undefined {
  const fact = factInRequest(factKey(key));
  if (fact === undefined) return undefined;
  return { item: fact === ABSENT ? undefined : (fact as Item) };
}
