// The answer of a list paged by position (trends): the rendered page, with the offset
// Link header of lib/paging/offset.ts. The id-paged lists answer through ./page.ts.
import { offsetLinkHeader } from '../paging/offset';
import { json, type Reply } from './reply';

export function offsetPageReply(ctx: { path: string }, page: { offset: number; limit: number; more: boolean }, body: unknown[]): Reply {
  const link = offsetLinkHeader(ctx.path, page);
  return json(body, 200, link ? { Link: link } : {});
}
