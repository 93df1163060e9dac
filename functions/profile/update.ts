// PATCH and PUT /api/v1/profile (https://docs.joinmastodon.org/methods/profile/#update-current-user-profile),
// Mastodon 4.6: the changes of update_credentials (lib/accounts/profile.ts) plus the profile tabs, answered as the
// Profile entity; a broken rule is a 422 naming each field.
import { profileInput, updateProfile, type ProfileUpdateInput } from '../../lib/accounts/profile';
import { http, type Ctx } from '../../lib/http';
import { renderProfile } from '../../lib/render/profile';
import { listFeaturedTags } from '../../lib/tags/featured';

export async function run(input: ProfileUpdateInput, ctx: Ctx<'user'>) {
  const account = await updateProfile(ctx.account, input, { details: true });
  return renderProfile(account, await listFeaturedTags(account));
}

export const handler = http(run, {
  auth: 'user',
  scopes: ['write:accounts'],
  schema: profileInput,
  limits: { maxFiles: 2 },
});
