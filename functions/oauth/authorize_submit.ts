// POST /oauth/authorize (https://docs.joinmastodon.org/methods/oauth/#authorize): the login and approval forms
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { submitAuthorization } from '../../lib/oauth/authorize';

const schema = z.record(z.unknown());

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  return submitAuthorization(input, ctx.cookies);
}

export const handler = http(run, { auth: 'public', schema });
