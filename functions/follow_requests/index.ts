// GET /api/v1/follow_requests (https://docs.joinmastodon.org/methods/follow_requests/#get)
import { z } from 'zod';
import { followRequestsOf } from '../../lib/graph/follow_requests';
import { accountsReply } from '../../lib/graph/respond';
import { http, type Ctx } from '../../lib/http';
import { pageQuery } from '../../lib/http/link';

export const followRequestsInput = pageQuery(40, 80);

export async function run(input: z.infer<typeof followRequestsInput>, ctx: Ctx<'user'>) {
  return accountsReply(await followRequestsOf(ctx.account, input), ctx);
}

export const handler = http(run, { auth: 'user', scopes: ['read:follows', 'follow'], schema: followRequestsInput });
