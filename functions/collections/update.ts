// PATCH /api/v1/collections/:id (https://docs.joinmastodon.org/methods/collections/#update_collection)
import { z } from 'zod';
import { collectionFields, updateCollection } from '../../lib/collections';
import { http, type Ctx } from '../../lib/http';
import { renderWrappedCollection } from '../../lib/render/collection';

export const schema = z.object({ id: z.string(), ...collectionFields });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const { id, ...fields } = input;
  return renderWrappedCollection(await updateCollection(ctx.account, id, fields), ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['write:collections'], schema });
