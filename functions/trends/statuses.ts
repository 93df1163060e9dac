// GET /api/v1/trends/statuses (https://docs.joinmastodon.org/methods/trends/#statuses)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { offsetPageReply } from '../../lib/http/offset_page';
import { limitParam } from '../../lib/paging';
import { offsetParam } from '../../lib/paging/offset';
import { renderStatuses } from '../../lib/render/status';
import { trendingStatuses } from '../../lib/trends';

export const schema = z.object({ limit: limitParam(20, 40), offset: offsetParam });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'optional'>) {
  const { statuses, more } = await trendingStatuses(ctx.account, input);
  return offsetPageReply(ctx, { ...input, more }, await renderStatuses(statuses, ctx.account, { context: 'public' }));
}

export const handler = http(run, { auth: 'optional', schema });
