// POST /api/v1/collections/:collection_id/items (https://docs.joinmastodon.org/methods/collections/#add_account)
import { z } from 'zod';
import { addItem } from '../../lib/collections';
import { http, type Ctx } from '../../lib/http';
import { renderCollectionItem } from '../../lib/render/collection';

// `account_id` is checked by addItem: Mastodon's own 422 when it is missing comes after the collection's checks.
export const schema = z.object({ id: z.string(), account_id: z.string({ invalid_type_error: 'must be an id' }).optional() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return { collection_item: renderCollectionItem(await addItem(ctx.account, input.id, input.account_id)) };
}

export const handler = http(run, { auth: 'user', scopes: ['write:collections'], schema });
