// POST /api/v1/statuses/:id/reblog (https://docs.joinmastodon.org/methods/statuses/#boost)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { reblog } from '../../lib/interactions/reblogs';
import { renderStatus } from '../../lib/render/status';

export const schema = z.object({
  id: z.string(),
  visibility: z.enum(['public', 'unlisted', 'private'], { errorMap: () => ({ message: 'is not a valid visibility' }) }).optional(),
});

/** Answers the reblog, with the original nested as `reblog`. */
export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderStatus(await reblog(ctx.account, input.id, input.visibility), ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['write:statuses'], schema });
