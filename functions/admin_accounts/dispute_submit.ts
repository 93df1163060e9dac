// POST /disputes/strikes/:id: signing in on the strike page, or appealing the strike (Mastodon's Disputes::AppealsController#create)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { countSignInAttempt } from '../../lib/oauth/login';
import { submitDispute } from '../../lib/moderation/disputes';

const schema = z.record(z.unknown());

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  const id = typeof input.id === 'string' ? input.id : '';
  if (input.email !== undefined) await countSignInAttempt(ctx.ip, input.email);
  return submitDispute(id, input, ctx.cookies);
}

export const handler = http(run, { auth: 'public', schema });
