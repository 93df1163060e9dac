// GET /api/v1/collections/:id (https://docs.joinmastodon.org/methods/collections/#get_collection)
import { z } from 'zod';
import { showCollection } from '../../lib/collections';
import { http, type Ctx } from '../../lib/http';
import { renderCollectionWithAccounts } from '../../lib/render/collection';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'optional'>) {
  const { collection } = await showCollection(input.id, ctx.account);
  return renderCollectionWithAccounts(collection, ctx.account);
}

export const handler = http(run, { auth: 'optional', scopes: ['read:collections'], schema });
