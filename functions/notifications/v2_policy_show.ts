// GET /api/v2/notifications/policy (https://docs.joinmastodon.org/methods/notifications/#get-policy):
// the viewer's notification policy (Mastodon 4.3) with how many requests and notifications it holds back.
import { http, type Ctx } from '../../lib/http';
import { policyView } from '../../lib/notifications/policy';
import { renderPolicy } from '../../lib/render/notification_request';

export async function run(_input: unknown, ctx: Ctx<'user'>) {
  return renderPolicy(await policyView(ctx.account.id));
}

export const handler = http(run, { auth: 'user', scopes: ['read:notifications'] });
