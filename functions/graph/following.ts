// GET /api/v1/accounts/:id/following (https://docs.joinmastodon.org/methods/accounts/#following)
import { z } from 'zod';
import { visibleAccountById } from '../../lib/accounts/lookup';
import { followingOf } from '../../lib/graph/lists';
import { accountsReply } from '../../lib/graph/respond';
import { http, type Ctx } from '../../lib/http';
import { pageQuery } from '../../lib/http/link';

export const followingInput = pageQuery(40, 80).extend({ id: z.string() });

export async function run(input: z.infer<typeof followingInput>, ctx: Ctx<'optional'>) {
  const account = await visibleAccountById(input.id);
  return accountsReply(await followingOf(account.id, input), ctx);
}

export const handler = http(run, { auth: 'optional', scopes: ['read:accounts'], schema: followingInput });
