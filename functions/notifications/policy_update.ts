// PUT or PATCH /api/v1/notifications/policy (https://docs.joinmastodon.org/methods/notifications/#update-policy-v1):
// the v1 booleans: true filters a criterion (a dropping one stays dropping), false accepts it.
import { z } from 'zod';
import type { PolicyAction } from '../../lib/db/notification_requests';
import { http, type Ctx } from '../../lib/http';
import { updatePolicy } from '../../lib/notifications/policy';
import { renderV1Policy } from '../../lib/render/notification_request';
import { booleanish } from '../../lib/schema';

export const schema = z.object({
  filter_not_following: booleanish.optional(),
  filter_not_followers: booleanish.optional(),
  filter_new_accounts: booleanish.optional(),
  filter_private_mentions: booleanish.optional(),
});

const actionOf = (filter: boolean | undefined, current: PolicyAction): PolicyAction | undefined => {
  if (filter === undefined) return undefined;
  if (!filter) return 'accept';
  return current === 'drop' ? 'drop' : 'filter';
};

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const view = await updatePolicy(ctx.account.id, (policy) => ({
    notFollowing: actionOf(input.filter_not_following, policy.notFollowing),
    notFollowers: actionOf(input.filter_not_followers, policy.notFollowers),
    newAccounts: actionOf(input.filter_new_accounts, policy.newAccounts),
    privateMentions: actionOf(input.filter_private_mentions, policy.privateMentions),
  }));
  return renderV1Policy(view);
}

export const handler = http(run, { auth: 'user', scopes: ['write:notifications'], schema });
