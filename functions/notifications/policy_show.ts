// GET /api/v1/notifications/policy (https://docs.joinmastodon.org/methods/notifications/#get-policy-v1):
// the viewer's notification policy in its v1 form (booleans), which Mastodon 4.3 still serves.
import { http, type Ctx } from '../../lib/http';
import { policyView } from '../../lib/notifications/policy';
import { renderV1Policy } from '../../lib/render/notification_request';

export async function run(_input: unknown, ctx: Ctx<'user'>) {
  return renderV1Policy(await policyView(ctx.account.id));
}

export const handler = http(run, { auth: 'user', scopes: ['read:notifications'] });
