// GET /users/:username/collections/:id (Mastodon 4.6): a local collection of accounts as a FeaturedCollection.
// Nothing for a signed request of an actor the owner blocks.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { featuredCollectionDocument } from '../../lib/federation/collections';
import { activityReply, authorizedFetch, requesterOf } from '../../lib/federation/serving';

export const schema = z.object({ username: z.string(), id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  await authorizedFetch(ctx);
  // Answered differently to a blocked signer: no cache may keep it for others.
  return activityReply(await featuredCollectionDocument(input.username, input.id, requesterOf(ctx)), ctx.headers.signature === undefined);
}

export const handler = http(run, { auth: 'public', schema });
