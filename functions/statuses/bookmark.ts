// POST /api/v1/statuses/:id/bookmark (https://docs.joinmastodon.org/methods/statuses/#bookmark)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { bookmark } from '../../lib/interactions/bookmarks';
import { renderStatus } from '../../lib/render/status';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderStatus(await bookmark(ctx.account, input.id), ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['write:bookmarks'], schema });
