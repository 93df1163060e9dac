// Offset paging, for the lists Mastodon pages by position rather than by id (trends:
// Api::V1::Trends::StatusesController and LinksController): `offset` and `limit` in,
// a Link header out. `next` points `limit` further when more follow; `prev` points
// `limit` back (never below 0) whenever the page did not start at 0. (Mastodon leaves
// `prev` out while `offset` <= `limit`, so a client could not page back to the first
// page; here it can.) Only `limit` travels with them, as Mastodon's pagination_params.
import { z } from 'zod';
import { config } from '../config';

/** The largest offset accepted: trends hold at most a few thousand items. */
export const MAX_OFFSET = 10000;

export const offsetParam = z.coerce
  .number({ invalid_type_error: 'must be a number' })
  .int('must be an integer')
  .min(0, 'must be 0 or more')
  .max(MAX_OFFSET, `must be at most ${MAX_OFFSET}`)
  .default(0);

/** `step`: how many items the page carried, when fewer than `limit` though more follow (a page shortened by size). */
export function offsetLinkHeader(path: string, page: { offset: number; limit: number; more: boolean; step?: number }): string | undefined {
  const link = (offset: number, rel: string) => `<${config.baseUrl}${path}?${new URLSearchParams({ limit: String(page.limit), offset: String(offset) }).toString()}>; rel="${rel}"`;
  const links = [
    ...(page.more ? [link(page.offset + (page.step ?? page.limit), 'next')] : []),
    ...(page.offset > 0 ? [link(Math.max(0, page.offset - page.limit), 'prev')] : []),
  ];
  return links.length > 0 ? links.join(', ') : undefined;
}
