// GET /@:username/:id (Mastodon's status URL): a plain web page of a status anyone may read, or its Note for a
// client that asks for ActivityPub (followers-only and direct ones only to a signed request allowed to see them).
import { z } from 'zod';
import { notFound } from '../../lib/errors';
import { http, type Ctx } from '../../lib/http';
import { noteDocument, publicStatusOf } from '../../lib/federation/documents';
import { statusPage } from '../../lib/federation/pages';
import { DOCUMENT_CONTEXT } from '../../lib/federation/render';
import { activityReply, authorizedFetch, handleParam, negotiate, requesterOf } from '../../lib/federation/serving';

export const schema = z.object({ handle: handleParam, id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  // Not a profile URL: the answer the catch-all gives every unknown path (functions/system/not_found.ts).
  if (input.handle === undefined) throw notFound('Not found');
  if (negotiate(ctx.headers.accept, 'html') === 'activity') {
    await authorizedFetch(ctx);
    const served = await noteDocument(input.handle, input.id, requesterOf(ctx));
    return activityReply({ '@context': DOCUMENT_CONTEXT, ...served.document }, served.open);
  }
  const { status, author } = await publicStatusOf(input.handle, input.id);
  return statusPage(status, author);
}

export const handler = http(run, { auth: 'public', schema });
