// The answer of every list endpoint: the rendered page, with Mastodon's Link header.
// The paging itself (ids, range, the header's text) is lib/paging's; this is the one
// place a page becomes a Reply, since lib/paging sits below lib/http and cannot build one.
import { linkHeader, type PageEdges } from '../paging';
import { json, type Reply } from './reply';

/**
 * `page` names the ids the links point from (lib/paging's `edgesOf` for items that
 * carry their own). The links carry `ctx.query`, the request's own parameters, unless
 * the endpoint passes the ones it re-derives from its input.
 */
export function pageReply(ctx: { path: string; query: Record<string, unknown> }, page: PageEdges, body: unknown[]): Reply {
  const link = linkHeader(ctx.path, ctx.query, page);
  return json(body, 200, link ? { Link: link } : {});
}
