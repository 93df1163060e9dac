// GET /api/v1/accounts/:id/in_collections (https://docs.joinmastodon.org/methods/collections/#in_collections)
import { z } from 'zod';
import { collectionsFeaturing, DEFAULT_PAGE } from '../../lib/collections';
import { http, json, type Ctx } from '../../lib/http';
import { limitParam } from '../../lib/paging';
import { offsetLinkHeader, offsetParam } from '../../lib/paging/offset';
import { renderCollections } from '../../lib/render/collection';

export const schema = z.object({ id: z.string(), offset: offsetParam, limit: limitParam(DEFAULT_PAGE, 80) });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const page = await collectionsFeaturing(input.id, ctx.account, input);
  const link = offsetLinkHeader(ctx.path, { offset: input.offset, limit: input.limit, more: page.more });
  return json({ collections: await renderCollections(page.collections, ctx.account) }, 200, link ? { Link: link } : {});
}

export const handler = http(run, { auth: 'user', scopes: ['read:collections'], schema });
