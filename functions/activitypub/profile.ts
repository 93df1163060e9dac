// GET /@:username (Mastodon's profile URL): a plain web page of the account, or its Person for a client that asks
// for application/activity+json or application/ld+json, as Mastodon answers at the same URL.
import { z } from 'zod';
import { notFound } from '../../lib/errors';
import { http, type Ctx } from '../../lib/http';
import { localAccountNamed, recentPublicStatuses } from '../../lib/federation/documents';
import { profilePage } from '../../lib/federation/pages';
import { renderPerson } from '../../lib/federation/render';
import { activityReply, authorizedFetch, handleParam, negotiate } from '../../lib/federation/serving';

/** The route is `/{handle}` (API Gateway takes a path variable only as a whole segment): it must read `@username`. */
export const schema = z.object({ handle: handleParam });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  // Not a profile URL: the answer the catch-all gives every unknown path (functions/system/not_found.ts).
  if (input.handle === undefined) throw notFound('Not found');
  const activity = negotiate(ctx.headers.accept, 'html') === 'activity';
  // A suspended account's page answers 403; its actor document stays served (Mastodon's AccountsController).
  const account = await localAccountNamed(input.handle, { whileSuspended: activity ? 'served' : 'forbidden' });
  if (activity) {
    await authorizedFetch(ctx);
    return activityReply(await renderPerson(account));
  }
  return profilePage(account, await recentPublicStatuses(account));
}

export const handler = http(run, { auth: 'public', schema });
