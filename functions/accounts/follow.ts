// POST /api/v1/accounts/:id/follow (https://docs.joinmastodon.org/methods/accounts/#follow)
import { z } from 'zod';
import { follow } from '../../lib/graph/follow';
import { http, type Ctx } from '../../lib/http';
import { booleanish } from '../../lib/schema';

export const schema = z.object({
  id: z.string(),
  /** Unset keeps the current value on an existing follow (new follows: true). */
  reblogs: booleanish.optional(),
  /** Unset keeps the current value on an existing follow (new follows: false). */
  notify: booleanish.optional(),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return follow(ctx.account, input.id, { showReblogs: input.reblogs, notify: input.notify });
}

export const handler = http(run, { auth: 'user', scopes: ['write:follows', 'follow'], schema });
