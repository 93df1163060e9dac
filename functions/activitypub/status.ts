// GET /users/:username/statuses/:id (https://docs.joinmastodon.org/spec/activitypub/#Note): a status as a Note.
// Followers-only and direct ones only to a signed request of an actor allowed to see them; else 404.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { noteDocument } from '../../lib/federation/documents';
import { activityReply, authorizedFetch, negotiate, requesterOf, toWebPage } from '../../lib/federation/serving';
import { DOCUMENT_CONTEXT } from '../../lib/federation/render';
import { apUrls } from '../../lib/federation/urls';

export const schema = z.object({ username: z.string(), id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  if (negotiate(ctx.headers.accept, 'activity') === 'activity') await authorizedFetch(ctx);
  const served = await noteDocument(input.username, input.id, requesterOf(ctx));
  if (negotiate(ctx.headers.accept, 'activity') === 'html') return toWebPage(apUrls.statusPage(served.author.username, served.status.id));
  return activityReply({ '@context': DOCUMENT_CONTEXT, ...served.document }, served.open);
}

export const handler = http(run, { auth: 'public', schema });
