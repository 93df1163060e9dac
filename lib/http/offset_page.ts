// The answer of a list paged by position (trends): the rendered page, with the offset
// Link header of lib/paging/offset.ts. The id-paged lists answer through ./page.ts.
import { offsetLinkHeader } from '../paging/offset';
import { fittingPrefix } from './page';
import { json, type Reply } from './reply';

/** A page too large for the response (./limits.ts) is shortened by size; its next link goes on from the last item kept. */
export function offsetPageReply(ctx: { path: string }, page: { offset: number; limit: number; more: boolean }, body: unknown[]): Reply {
  const kept = fittingPrefix(body);
  const shortened = kept.length < body.length;
  const link = offsetLinkHeader(ctx.path, { ...page, more: page.more || shortened, step: shortened ? kept.length : undefined });
  return json(kept, 200, link ? { Link: link } : {});
}
