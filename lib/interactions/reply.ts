// The answer of an interaction list: the rendered page with Mastodon's Link header.
import { json, type Reply } from '../http';
import { linkHeader } from '../http/link';

function queryValues(query: Record<string, unknown>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(query)) {
    if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v)) out[k] = v.filter((x): x is string => typeof x === 'string');
  }
  return out;
}

export function pageReply(body: unknown[], ctx: { path: string; query: Record<string, unknown> }, ids: { newest?: string; oldest?: string }): Reply {
  const link = linkHeader(ctx.path, queryValues(ctx.query), ids);
  return json(body, 200, link ? { Link: link } : {});
}
