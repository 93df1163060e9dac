// DELETE /api/v1/profile/header (https://docs.joinmastodon.org/methods/profile/#delete-profile-header)
import { removeProfileImage } from '../../lib/accounts/profile_images';
import { http, type Ctx } from '../../lib/http';
import { renderAccount } from '../../lib/render/account';

export async function run(_input: unknown, ctx: Ctx<'user'>) {
  return renderAccount(await removeProfileImage(ctx.account, 'header'), { withSource: true });
}

export const handler = http(run, { auth: 'user', scopes: ['write:accounts'] });
