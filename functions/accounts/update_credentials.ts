// PATCH /api/v1/accounts/update_credentials (https://docs.joinmastodon.org/methods/accounts/#update_credentials)
import { updateCredentialsInput, updateProfile, type UpdateCredentialsInput } from '../../lib/accounts/profile';
import { http, type Ctx } from '../../lib/http';
import { renderAccount } from '../../lib/render/account';

export async function run(input: UpdateCredentialsInput, ctx: Ctx<'user'>) {
  const account = await updateProfile(ctx.account, input);
  return renderAccount(account, { withSource: true });
}

export const handler = http(run, {
  auth: 'user',
  scopes: ['write:accounts'],
  schema: updateCredentialsInput,
  limits: { maxFiles: 2 },
});
