// GET /users/:username/feature_authorizations/:id (Mastodon 4.6): the FeatureAuthorization by which one of our
// accounts consented to be in a collection, which other servers fetch to verify the collection's item.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { featureAuthorizationDocument } from '../../lib/federation/collections_consent';
import { activityReply, authorizedFetch } from '../../lib/federation/serving';

export const schema = z.object({ username: z.string(), id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  await authorizedFetch(ctx);
  // Withdrawn at any moment (a revoke): no cache may keep it.
  return activityReply(await featureAuthorizationDocument(input.username, input.id), false);
}

export const handler = http(run, { auth: 'public', schema });
