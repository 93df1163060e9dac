// PUT /api/v1/statuses/:id/interaction_policy (https://docs.joinmastodon.org/methods/statuses/#edit_interaction_policy),
// Mastodon 4.5: the author changes who may quote its status; past quotes stay as they are.
import { z } from 'zod';
import { quotePolicies } from '../../lib/db/statuses';
import { http, type Ctx } from '../../lib/http';
import { renderStatus } from '../../lib/render/status';
import { setInteractionPolicy } from '../../lib/statuses/quotes';

export const schema = z.object({
  id: z.string(),
  quote_approval_policy: z.enum(quotePolicies, {
    errorMap: (issue) => ({ message: issue.code === 'invalid_type' && issue.received === 'undefined' ? "can't be blank" : 'is not a valid quote policy' }),
  }),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderStatus(await setInteractionPolicy(ctx.account, input.id, input.quote_approval_policy), ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['write:statuses'], schema });
