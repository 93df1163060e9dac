// POST /api/v1/statuses/:id/unfavourite (https://docs.joinmastodon.org/methods/statuses/#unfavourite)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { unfavourite } from '../../lib/interactions/favourites';
import { renderStatus } from '../../lib/render/status';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderStatus(await unfavourite(ctx.account, input.id), ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['write:favourites'], schema });
