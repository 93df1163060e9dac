// POST /api/v1/statuses/:id/unbookmark (https://docs.joinmastodon.org/methods/statuses/#unbookmark)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { unbookmark } from '../../lib/interactions/bookmarks';
import { renderStatus } from '../../lib/render/status';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderStatus(await unbookmark(ctx.account, input.id), ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['write:bookmarks'], schema });
