// POST /api/v1/statuses/:id/unreblog (https://docs.joinmastodon.org/methods/statuses/#unreblog)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { throttles } from '../../lib/http/ratelimit';
import { unreblog } from '../../lib/interactions/reblogs';
import { renderStatus } from '../../lib/render/status';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderStatus(await unreblog(ctx.account, input.id), ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['write:statuses'], schema, throttles: [throttles.statusDelete] });
