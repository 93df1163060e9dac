// The answer of every list endpoint: the rendered page, with Mastodon's Link header.
// The paging itself (ids, range, the header's text) is lib/paging's; this is the one
// place a page becomes a Reply, since lib/paging sits below lib/http and cannot build one.
// It is also where a page is held to what the response can carry (./limits.ts): a page
// whose items are large (remote statuses run to hundreds of KB) is shortened by size, and
// its Link points on from the last item kept, as a shorter `limit` would have.
import { cutEdges, fittingSlice, linkHeader, type PageEdges } from '../paging';
import { log } from '../log';
import { PAGE_BODY_BUDGET_BYTES } from './limits';
import { raw, type Reply } from './reply';

export type PageOptions = {
  /**
   * The paging id of a rendered item (what `max_id`/`min_id` name: a status's id on a timeline, a
   * favourite's id on /api/v1/favourites). An endpoint that gives it may have its page shortened by
   * size; one without it answers its page whole, which only lists of small items may do.
   */
  keyOf?: (item: unknown) => string | undefined;
  /** Whether the page was read upwards from `min_id`; by default, whether the request named one. */
  ascending?: boolean;
};

/** The paging id of an item that carries its own (statuses on a timeline, notifications). */
export const ownId = (item: unknown): string | undefined => {
  const id = item !== null && typeof item === 'object' ? (item as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : undefined;
};

/** A JSON text's size once written as a JSON string into the function's result: `"` and `\` escaped again. */
export function payloadBytes(text: string): number {
  let escaped = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 || c === 92) escaped++;
  }
  return Buffer.byteLength(text) + escaped;
}

/**
 * `page` names the ids the links point from (lib/paging's `edgesOf` for items that
 * carry their own). The links carry `ctx.query`, the request's own parameters, unless
 * the endpoint passes the ones it re-derives from its input.
 */
export function pageReply(ctx: { path: string; query: Record<string, unknown> }, page: PageEdges, body: unknown[], opts: PageOptions = {}): Reply {
  const parts = body.map((item) => JSON.stringify(item) ?? 'null');
  let text = `[${parts.join(',')}]`;
  let edges = page;
  // Escaping at most doubles a text, so a page under half the budget (every ordinary one) is not counted further.
  if (opts.keyOf && Buffer.byteLength(text) * 2 > PAGE_BODY_BUDGET_BYTES) {
    const ascending = opts.ascending ?? typeof ctx.query.min_id === 'string';
    // Each item with its comma; the brackets are the budget's first two bytes.
    const { start, end } = fittingSlice(parts.map((p) => payloadBytes(p) + 1), PAGE_BODY_BUDGET_BYTES - 2, ascending);
    const first = opts.keyOf(body[start]);
    const last = opts.keyOf(body[end - 1]);
    if (end - start < parts.length && first !== undefined && last !== undefined) {
      log.info('page shortened by size', { path: ctx.path, read: parts.length, kept: end - start });
      text = `[${parts.slice(start, end).join(',')}]`;
      edges = cutEdges(page, { first, last }, ascending);
    }
  }
  const link = linkHeader(ctx.path, ctx.query, edges);
  return raw(text, 'application/json; charset=utf-8', 200, link ? { Link: link } : {});
}

/**
 * The first items of an offset-paged list (search, trends) that fit in `budget` as the function's
 * result carries them: all of them when they fit, at least one. Shortening such a list is safe, as
 * clients go on at `offset` plus the count they received.
 */
export function fittingPrefix<T>(items: T[], budget: number = PAGE_BODY_BUDGET_BYTES - 2): T[] {
  const parts = items.map((item) => JSON.stringify(item) ?? 'null');
  const whole = parts.reduce((sum, p) => sum + Buffer.byteLength(p) + 1, 0);
  if (whole * 2 <= budget) return items;
  const { end } = fittingSlice(parts.map((p) => payloadBytes(p) + 1), budget, false);
  if (end < items.length) log.info('offset page shortened by size', { read: items.length, kept: end });
  return items.slice(0, end);
}

/**
 * The answer of GET /api/v1/statuses/:id/context, held to the same budget: it has no Link to page
 * on, so, as Mastodon bounds a context by counts, it is bounded by size. The ancestors nearest the
 * status are kept within half the budget, then the descendants in thread order within what is left.
 */
export function contextReply(ancestors: unknown[], descendants: unknown[], headers: Record<string, string> = {}): Reply {
  const a = ancestors.map((item) => JSON.stringify(item) ?? 'null');
  const d = descendants.map((item) => JSON.stringify(item) ?? 'null');
  const text = (aParts: string[], dParts: string[]) => `{"ancestors":[${aParts.join(',')}],"descendants":[${dParts.join(',')}]}`;
  const whole = text(a, d);
  if (Buffer.byteLength(whole) * 2 <= PAGE_BODY_BUDGET_BYTES) return raw(whole, 'application/json; charset=utf-8', 200, headers);
  const sizeOf = (p: string) => payloadBytes(p) + 1;
  const aSizes = a.map(sizeOf);
  const kept = fittingSlice(aSizes, PAGE_BODY_BUDGET_BYTES / 2, true);
  const aKept = a.slice(kept.start);
  const used = aSizes.slice(kept.start).reduce((sum, n) => sum + n, 64);
  const dKept = d.length === 0 ? [] : d.slice(0, fittingSlice(d.map(sizeOf), PAGE_BODY_BUDGET_BYTES - used, false).end);
  if (aKept.length < a.length || dKept.length < d.length) {
    log.info('context shortened by size', { ancestors: [a.length, aKept.length], descendants: [d.length, dKept.length] });
  }
  return raw(text(aKept, dKept), 'application/json; charset=utf-8', 200, headers);
}

type Rendered = Record<string, unknown>;
type GroupedBody = { accounts: Rendered[]; partial_accounts?: Rendered[]; statuses: Rendered[]; notification_groups: Rendered[] };

/**
 * How many of a grouped page's groups (`groupKeys`, in page order, newest first) fit in the budget,
 * counted from where the request started (the newest when read downwards, the oldest when read upwards
 * from `min_id`): each group with the statuses and accounts it is the first to name. Every group when
 * the whole fits; at least one, so paging always moves on.
 */
export function groupsFitting(results: GroupedBody, groupKeys: readonly string[], ascending: boolean): number {
  const whole = JSON.stringify(results);
  if (Buffer.byteLength(whole) * 2 <= PAGE_BODY_BUDGET_BYTES) return groupKeys.length;
  const sized = (items: Rendered[] | undefined) => new Map((items ?? []).map((item) => [String(item.id), payloadBytes(JSON.stringify(item)) + 1]));
  const statuses = sized(results.statuses);
  const accounts = sized([...results.accounts, ...(results.partial_accounts ?? [])]);
  const groups = new Map(results.notification_groups.map((g) => [String(g.group_key), g]));
  const named = new Set<string>();
  const share = (map: Map<string, number>, id: unknown) => {
    const key = String(id);
    if (id === undefined || named.has(key)) return 0;
    named.add(key);
    return map.get(key) ?? 0;
  };
  // A group dropped by rendering (its status gone) weighs nothing, but still counts as one of the page's.
  const sizeOf = (groupKey: string) => {
    const g = groups.get(groupKey);
    if (!g) return 0;
    const sample = Array.isArray(g.sample_account_ids) ? g.sample_account_ids : [];
    return payloadBytes(JSON.stringify(g)) + 1 + share(statuses, g.status_id) + sample.reduce((sum: number, id) => sum + share(accounts, id), 0);
  };
  const ordered = ascending ? [...groupKeys].reverse() : [...groupKeys];
  const sizes = ordered.map(sizeOf);
  // The object's keys and brackets: well under a KB.
  return fittingSlice(sizes, PAGE_BODY_BUDGET_BYTES - 1_024, false).end;
}
