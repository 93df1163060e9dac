// GET /disputes/strikes/:id: the strike page of a warned account (Mastodon's Disputes::StrikesController#show)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { showDispute } from '../../lib/moderation/disputes';

const schema = z.object({ id: z.string() }).passthrough();

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  return showDispute(input.id, ctx.cookies);
}

export const handler = http(run, { auth: 'public', schema });
