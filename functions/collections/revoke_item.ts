// POST /api/v1/collections/:collection_id/items/:id/revoke (https://docs.joinmastodon.org/methods/collections/#revoke_item)
import { z } from 'zod';
import { revokeItem } from '../../lib/collections';
import { http, type Ctx } from '../../lib/http';

export const schema = z.object({ id: z.string(), item_id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await revokeItem(ctx.account, input.id, input.item_id);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:collections'], schema });
