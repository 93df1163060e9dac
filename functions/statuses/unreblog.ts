// POST /api/v1/statuses/:id/unreblog (https://docs.joinmastodon.org/methods/statuses/#unreblog)
import { z } from 'zod';
import type { Account } from '../../lib/db/accounts';
import { http } from '../../lib/http';
import { throttles } from '../../lib/http/ratelimit';
import { unreblog } from '../../lib/interactions/reblogs';
import { renderStatus } from '../../lib/render/status';

export const input = z.object({ id: z.string() });

export async function run(params: z.infer<typeof input>, ctx: { account: Account }) {
  return renderStatus(await unreblog(ctx.account, params.id), ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['write:statuses'], schema: input, throttles: [throttles.statusDelete] });
