// GET /users/:username/quote_authorizations/:id (FEP-044f, as Mastodon 4.5 serves it): the stamp by which one of
// our accounts approved a remote status's quote of its status, which other servers fetch to verify the quote.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { quoteAuthorizationDocument } from '../../lib/federation/quotes';
import { activityReply, authorizedFetch } from '../../lib/federation/serving';

export const schema = z.object({ username: z.string(), id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  await authorizedFetch(ctx);
  return activityReply(await quoteAuthorizationDocument(input.username, input.id));
}

export const handler = http(run, { auth: 'public', schema });
