// POST /api/v1/collections (https://docs.joinmastodon.org/methods/collections/#create)
import { z } from 'zod';
import { accountIdsField, collectionFields, createCollection } from '../../lib/collections';
import { http, type Ctx } from '../../lib/http';
import { renderWrappedCollection } from '../../lib/render/collection';

export const schema = z.object({ ...collectionFields, account_ids: accountIdsField });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderWrappedCollection(await createCollection(ctx.account, input), ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['write:collections'], schema });
