// Pagination: `max_id` / `since_id` / `min_id` / `limit` parsing, and the `Link`
// header (`next` = older, `prev` = newer) that Mastodon sends on every list endpoint.
import { z } from 'zod';
import { config } from '../config';

const idParam = z.string().regex(/^\d{1,20}$/, 'must be an id').optional();

export const limitParam = (fallback: number, max: number) =>
  z.coerce.number({ invalid_type_error: 'must be a number' }).int().min(0).optional()
    .transform((n) => (n === undefined ? fallback : Math.min(Math.max(n, 1), max)));

export const pageQuery = (fallback = 20, max = 40) =>
  z.object({ max_id: idParam, since_id: idParam, min_id: idParam, limit: limitParam(fallback, max) });

export type Page = { max_id?: string; since_id?: string; min_id?: string; limit: number };

// The request's own parameters travel in the links (an endpoint's filters: `types[]`,
// `only_media`, `local`), as Mastodon's do. Only a bounded set does: no parameter of
// any endpoint is long, and copying a 9,000-character one into both links could push
// the header past what the gateway in front accepts. The token never travels.
const MAX_LINK_PARAMS = 20;
const MAX_LINK_KEY = 64;
const MAX_LINK_VALUE = 256;
const NOT_CARRIED = new Set(['max_id', 'since_id', 'min_id', 'access_token']);

/** Builds the Link header for a page whose first and last items carry these ids. */
export function linkHeader(path: string, query: Record<string, unknown>, ids: { newest?: string; oldest?: string }): string | undefined {
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
