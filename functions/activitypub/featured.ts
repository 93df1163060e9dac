// GET /users/:username/collections/featured (https://docs.joinmastodon.org/spec/activitypub/#featured): the pinned
// statuses anyone may read, as Notes.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { featuredDocument } from '../../lib/federation/documents';
import { activityReply, authorizedFetch } from '../../lib/federation/serving';

export const schema = z.object({ username: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  await authorizedFetch(ctx);
  return activityReply(await featuredDocument(input.username));
}

export const handler = http(run, { auth: 'public', schema });
