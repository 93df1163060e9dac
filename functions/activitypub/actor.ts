// GET /users/:username (https://docs.joinmastodon.org/spec/activitypub/#as): the account as a Person; a browser goes to its page.
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { localAccountNamed } from '../../lib/federation/documents';
import { activityReply, authorizedFetch, negotiate, toWebPage } from '../../lib/federation/serving';
import { renderPerson } from '../../lib/federation/render';
import { apUrls } from '../../lib/federation/urls';

export const schema = z.object({ username: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  // The actor document of a suspended account stays served (its page answers 403 itself).
  const account = await localAccountNamed(input.username, { whileSuspended: 'served' });
  if (negotiate(ctx.headers.accept, 'activity') === 'html') return toWebPage(apUrls.profile(account.username));
  await authorizedFetch(ctx);
  return activityReply(await renderPerson(account));
}

export const handler = http(run, { auth: 'public', schema });
