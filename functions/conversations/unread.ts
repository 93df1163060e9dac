// POST /api/v1/conversations/:id/unread (https://docs.joinmastodon.org/methods/conversations/#unread, Mastodon 4.4)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { markConversationUnread } from '../../lib/conversations';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return markConversationUnread(ctx.account, input.id);
}

export const handler = http(run, { auth: 'user', scopes: ['write:conversations'], schema });
