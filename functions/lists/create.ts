// POST /api/v1/lists (https://docs.joinmastodon.org/methods/lists/#create)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { createList, listTitle, repliesPolicy } from '../../lib/lists';
import { renderList } from '../../lib/render/list';

export const schema = z.object({ title: listTitle, replies_policy: repliesPolicy.optional() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderList(await createList(ctx.account, { title: input.title, repliesPolicy: input.replies_policy }));
}

export const handler = http(run, { auth: 'user', scopes: ['write:lists'], schema });
