// GET /api/v1/preferences (https://docs.joinmastodon.org/methods/preferences/#get)
import { http, type Ctx } from '../../lib/http';
import { renderPreferences } from '../../lib/render/account';

export async function run(_input: unknown, ctx: Ctx<'user'>) {
  return renderPreferences(ctx.account);
}

export const handler = http(run, { auth: 'user', scopes: ['read:accounts'] });
