// GET /users/:username/followers (https://www.w3.org/TR/activitypub/#followers): the count, or with `page=true`
// one page (max_id / min_id) of the followers' actor URIs.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { followersDocument, followersPageDocument } from '../../lib/federation/documents';
import { activityReply, authorizedFetch } from '../../lib/federation/serving';
import { absent, booleanish, idParam } from '../../lib/schema';

export const schema = z.object({ username: z.string(), page: absent(booleanish), max_id: idParam, min_id: idParam });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  await authorizedFetch(ctx);
  if (!input.page) return activityReply(await followersDocument(input.username));
  return activityReply(await followersPageDocument(input.username, { max_id: input.max_id, min_id: input.min_id }));
}

export const handler = http(run, { auth: 'public', schema });
