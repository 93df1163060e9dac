// POST /oauth/authorize (https://docs.joinmastodon.org/methods/oauth/#authorize): the login and approval forms
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { submitAuthorization } from '../../lib/oauth/authorize';
import { countSignInAttempt } from '../../lib/oauth/login';

const schema = z.record(z.unknown());

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  // A submission without a decision is the login form's: a sign-in attempt, counted whatever follows.
  if (input.decision === undefined) await countSignInAttempt(ctx.ip, input.email);
  return submitAuthorization(input, ctx.cookies);
}

export const handler = http(run, { auth: 'public', schema });
