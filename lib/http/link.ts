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

/** Builds the Link header for a page whose first and last items carry these ids. */
export function linkHeader(path: string, query: Record<string, string | string[] | undefined>, ids: { newest?: string; oldest?: string }): string | undefined {
  if (!ids.newest || !ids.oldest) return undefined;
  const base = (extra: Record<string, string>) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (v === undefined || ['max_id', 'since_id', 'min_id'].includes(k)) continue;
      for (const one of Array.isArray(v) ? v : [v]) params.append(Array.isArray(v) ? `${k}[]` : k, one);
    }
    for (const [k, v] of Object.entries(extra)) params.set(k, v);
    return `<${config.baseUrl}${path}?${params.toString()}>`;
  };
  return `${base({ max_id: ids.oldest })}; rel="next", ${base({ min_id: ids.newest })}; rel="prev"`;
}
