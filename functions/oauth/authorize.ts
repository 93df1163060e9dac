// GET /oauth/authorize (https://docs.joinmastodon.org/methods/oauth/#authorize)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { showAuthorization } from '../../lib/oauth/authorize';

// Bad parameters are shown on an error page by lib/oauth/authorize, never answered as JSON.
const schema = z.record(z.unknown());

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  return showAuthorization(input, ctx.cookies);
}

export const handler = http(run, { auth: 'public', schema });
