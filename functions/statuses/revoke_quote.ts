// POST /api/v1/statuses/:id/quotes/:quoting_status_id/revoke (https://docs.joinmastodon.org/methods/statuses/#revoke_quote),
// Mastodon 4.5: the author of status :id withdraws its approval of the quote :quoting_status_id makes of it.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { renderStatus } from '../../lib/render/status';
import { revokeQuote } from '../../lib/statuses/quotes';

export const schema = z.object({ id: z.string(), quoting_status_id: z.string() });

/** Answers the quoting status, its quote now `revoked`. */
export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderStatus(await revokeQuote(ctx.account, input.id, input.quoting_status_id), ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['write:statuses'], schema });
