// GET /api/v1/apps/verify_credentials (https://docs.joinmastodon.org/methods/apps/#verify_credentials)
import { appByClientId } from '../../lib/db/apps';
import { unauthorized } from '../../lib/errors';
import { http, type Ctx } from '../../lib/http';
import { renderApplication } from '../../lib/render/application';

export async function run(_input: unknown, ctx: Ctx<'app'>) {
  const app = await appByClientId(ctx.token.clientId);
  if (!app) throw unauthorized();
  return renderApplication(app);
}

export const handler = http(run, { auth: 'app' });
