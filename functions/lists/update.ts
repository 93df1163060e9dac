// PUT /api/v1/lists/:id (https://docs.joinmastodon.org/methods/lists/#update)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { listTitle, repliesPolicy, updateList } from '../../lib/lists';
import { renderList } from '../../lib/render/list';

export const schema = z.object({ id: z.string(), title: listTitle.optional(), replies_policy: repliesPolicy.optional() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderList(await updateList(ctx.account, input.id, { title: input.title, repliesPolicy: input.replies_policy }));
}

export const handler = http(run, { auth: 'user', scopes: ['write:lists'], schema });
