// GET /users/:username/statuses/:id/replies (Mastodon's ActivityPub::RepliesController): a status's replies
// collection, the first page embedded; with `page=true` one page, after `min_id`. Served to whoever may read the
// status (a followers-only one only to a signed request of an actor allowed to see it), as its Note is.
import { z } from 'zod';
import { repliesDocument } from '../../lib/federation/documents';
import { DOCUMENT_CONTEXT } from '../../lib/federation/render';
import { activityReply, authorizedFetch, requesterOf } from '../../lib/federation/serving';
import { http, type Ctx } from '../../lib/http';
import { absent, booleanish, idParam } from '../../lib/schema';

export const schema = z.object({ username: z.string(), id: z.string(), page: absent(booleanish), min_id: idParam });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  await authorizedFetch(ctx);
  const served = await repliesDocument(input.username, input.id, requesterOf(ctx), input.page ? { min_id: input.min_id } : undefined);
  return activityReply({ '@context': DOCUMENT_CONTEXT, ...served.document }, served.open);
}

export const handler = http(run, { auth: 'public', schema });
