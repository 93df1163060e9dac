// POST /api/v1/statuses/:id/favourite (https://docs.joinmastodon.org/methods/statuses/#favourite)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { favourite } from '../../lib/interactions/favourites';
import { renderStatus } from '../../lib/render/status';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderStatus(await favourite(ctx.account, input.id), ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['write:favourites'], schema });
