// GET /users/:username/statuses/:id/activity (https://docs.joinmastodon.org/spec/activitypub/): the Create of a
// status, or the Announce of a reblog; followers-only and direct ones only to a signed request allowed to see them.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { activityDocument } from '../../lib/federation/documents';
import { activityReply, authorizedFetch, requesterOf } from '../../lib/federation/serving';
import { DOCUMENT_CONTEXT } from '../../lib/federation/render';

export const schema = z.object({ username: z.string(), id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  await authorizedFetch(ctx);
  const served = await activityDocument(input.username, input.id, requesterOf(ctx));
  return activityReply({ '@context': DOCUMENT_CONTEXT, ...served.document }, served.open);
}

export const handler = http(run, { auth: 'public', schema });
