// GET /api/v1/accounts/verify_credentials (https://docs.joinmastodon.org/methods/accounts/#verify_credentials)
import { http, type Ctx } from '../../lib/http';
import { renderAccount } from '../../lib/render/account';

export async function run(_input: unknown, ctx: Ctx<'user'>) {
  return renderAccount(ctx.account, { withSource: true });
}

export const handler = http(run, { auth: 'user', scopes: ['read:accounts'] });
