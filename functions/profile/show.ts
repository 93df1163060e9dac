// GET /api/v1/profile (https://docs.joinmastodon.org/methods/profile/#get-current-user-profile), Mastodon 4.6
import { http, type Ctx } from '../../lib/http';
import { renderProfile } from '../../lib/render/profile';
import { listFeaturedTags } from '../../lib/tags/featured';

export async function run(_input: unknown, ctx: Ctx<'user'>) {
  return renderProfile(ctx.account, await listFeaturedTags(ctx.account));
}

// Mastodon's `doorkeeper_authorize! :profile, :read, :'read:accounts'` (`read` covers `read:accounts`).
export const handler = http(run, { auth: 'user', scopes: ['profile', 'read:accounts'] });
