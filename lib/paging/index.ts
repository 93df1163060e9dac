// Paging, as Mastodon's list endpoints page: `max_id` / `since_id` / `min_id` / `limit`
// parsed from the query, turned into a range of ids, and the `Link` header (`next` =
// older, `prev` = newer) that points a client at the neighbouring pages. It sits below
// both lib/http and lib/db, so that the data layer can take a Page without knowing HTTP:
// it knows ids and URLs, never a table or a request.
import { z } from 'zod';
import { config } from '../config';
import { ID_WIDTH, padId } from '../ids';
import { idParam } from '../schema';

// ---- the request ----

export const limitParam = (fallback: number, max: number) =>
  z.coerce.number({ invalid_type_error: 'must be a number' }).int().min(0).optional()
    .transform((n) => (n === undefined ? fallback : Math.min(Math.max(n, 1), max)));

/** The paging part of a list endpoint's query schema; endpoints `.extend()` it with their filters. */
export const pageQuery = (fallback = 20, max = 40) =>
  z.object({ max_id: idParam, since_id: idParam, min_id: idParam, limit: limitParam(fallback, max) });

/** The bounds of a page request; all exclusive, as Mastodon's. */
export type IdRange = { max_id?: string; since_id?: string; min_id?: string };
export type Page = IdRange & { limit: number };

// ---- the range ----

const LARGEST = 10n ** BigInt(ID_WIDTH) - 1n;

/**
 * A page's bounds as inclusive padded ids (the sort-key form of lib/ids), and the
 * direction to read. `min_id` wins over `since_id`, as in Mastodon, and reads upwards
 * (the page immediately newer); otherwise the page reads downwards. Undefined when
 * nothing can lie in the range (`max_id=0`, `min_id` at or above `max_id`), so the
 * caller answers an empty page without a read.
 */
export function pageRange(range: IdRange): { lo?: string; hi?: string; ascending: boolean } | undefined {
  const lowerId = range.min_id ?? range.since_id;
  const lower = lowerId === undefined ? undefined : BigInt(lowerId) + 1n;
  const upper = range.max_id === undefined ? undefined : BigInt(range.max_id) - 1n;
  if (lower !== undefined && lower > LARGEST) return undefined;
  if (upper !== undefined && upper < 0n) return undefined;
  if (lower !== undefined && upper !== undefined && lower > upper) return undefined;
  return {
    ...(lower !== undefined ? { lo: padId(lower.toString()) } : {}),
    ...(upper !== undefined ? { hi: padId((upper > LARGEST ? LARGEST : upper).toString()) } : {}),
    ascending: range.min_id !== undefined,
  };
}

// ---- the answer ----

/**
 * The ids the links of an answered page point from: its newest and oldest entry as
 * read, which may differ from what the body shows (items hidden after the read must
 * not stall paging).
 */
export type PageEdges = { newest?: string; oldest?: string };

/** The edges of a page whose items carry their paging id. */
export const edgesOf = (items: readonly { id: string }[]): PageEdges => ({ newest: items[0]?.id, oldest: items.at(-1)?.id });

// The request's own parameters travel in the links (an endpoint's filters: `types[]`,
// `only_media`, `local`), as Mastodon's do. Only a bounded set does: no parameter of
// any endpoint is long, and copying a 9,000-character one into both links could push
// the header past what the gateway in front accepts. The token never travels.
const MAX_LINK_PARAMS = 20;
const MAX_LINK_KEY = 64;
const MAX_LINK_VALUE = 256;
const NOT_CARRIED = new Set(['max_id', 'since_id', 'min_id', 'access_token']);

/** Builds the Link header for a page whose first and last items carry these ids; undefined for an empty page. */
export function linkHeader(path: string, query: Record<string, unknown>, ids: PageEdges): string | undefined {
  if (!ids.newest || !ids.oldest) return undefined;
  const carried = new URLSearchParams();
  let count = 0;
  for (const [k, v] of Object.entries(query)) {
    if (NOT_CARRIED.has(k) || k.length > MAX_LINK_KEY) continue;
    const values = Array.isArray(v) ? v : [v];
    if (!values.every((one): one is string => typeof one === 'string' && one.length <= MAX_LINK_VALUE)) continue;
    for (const one of values) {
      if (count++ >= MAX_LINK_PARAMS) break;
      carried.append(Array.isArray(v) ? `${k}[]` : k, one);
    }
  }
  const link = (extra: Record<string, string>) => {
    const params = new URLSearchParams(carried);
    for (const [k, v] of Object.entries(extra)) params.set(k, v);
    return `<${config.baseUrl}${path}?${params.toString()}>`;
  };
  return `${link({ max_id: ids.oldest })}; rel="next", ${link({ min_id: ids.newest })}; rel="prev"`;
}

// ---- a page shortened by size ----

/**
 * The part of a page (items in page order, newest first, with their sizes) that fits in `budget`,
 * as slice bounds: the whole page when it fits, else the items next to where the client asked to
 * start (the newest of a page read downwards, the oldest of one read upwards from `min_id`), so the
 * links of the part kept lead on to the rest with nothing skipped. Never less than one item: an item
 * over the budget alone is answered alone, so paging always moves on.
 */
export function fittingSlice(sizes: readonly number[], budget: number, ascending: boolean): { start: number; end: number } {
  let used = 0;
  if (!ascending) {
    let end = 0;
    while (end < sizes.length && (end === 0 || used + sizes[end]! <= budget)) used += sizes[end++]!;
    return { start: 0, end };
  }
  let start = sizes.length;
  while (start > 0 && (start === sizes.length || used + sizes[start - 1]! <= budget)) used += sizes[--start]!;
  return { start, end: sizes.length };
}

/**
 * The edges of a page cut short on one side: that side's link points from the last item kept
 * (`kept`, the paging ids of the first and last item kept), the other keeps the page as read.
 */
export const cutEdges = (read: PageEdges, kept: { first: string; last: string }, ascending: boolean): PageEdges =>
  ascending ? { newest: kept.first, oldest: read.oldest } : { newest: read.newest, oldest: kept.last };
