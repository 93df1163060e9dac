// GET /users/:username/featured_collections (Mastodon 4.6, the actor's `featuredCollections`): its collections of
// accounts. Nothing for a signed request of an actor the owner blocks.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { featuredCollectionsDocument } from '../../lib/federation/collections';
import { activityReply, authorizedFetch, requesterOf } from '../../lib/federation/serving';

export const schema = z.object({ username: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  await authorizedFetch(ctx);
  return activityReply(await featuredCollectionsDocument(input.username, requesterOf(ctx)), ctx.headers.signature === undefined);
}

export const handler = http(run, { auth: 'public', schema });
