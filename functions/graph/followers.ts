// GET /api/v1/accounts/:id/followers (https://docs.joinmastodon.org/methods/accounts/#followers)
import { z } from 'zod';
import { visibleAccountById } from '../../lib/accounts/lookup';
import { followersOf } from '../../lib/graph/lists';
import { accountsReply } from '../../lib/graph/respond';
import { http, type Ctx } from '../../lib/http';
import { pageQuery } from '../../lib/http/link';

export const followersInput = pageQuery(40, 80).extend({ id: z.string() });

export async function run(input: z.infer<typeof followersInput>, ctx: Ctx<'optional'>) {
  const account = await visibleAccountById(input.id);
  return accountsReply(await followersOf(account.id, input), ctx);
}

export const handler = http(run, { auth: 'optional', scopes: ['read:accounts'], schema: followersInput });
