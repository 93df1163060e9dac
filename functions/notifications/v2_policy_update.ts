// PATCH or PUT /api/v2/notifications/policy (https://docs.joinmastodon.org/methods/notifications/#update-the-filtering-policy-for-notifications):
// sets any of the six criteria (4.6 added for_bots) to accept, filter or drop; the others keep their value.
import { z } from 'zod';
import { policyActions } from '../../lib/db/notification_requests';
import { http, type Ctx } from '../../lib/http';
import { updatePolicy } from '../../lib/notifications/policy';
import { renderPolicy } from '../../lib/render/notification_request';

const action = z.enum(policyActions, { errorMap: () => ({ message: "must be 'accept', 'filter' or 'drop'" }) }).optional();

export const schema = z.object({
  for_not_following: action,
  for_not_followers: action,
  for_new_accounts: action,
  for_private_mentions: action,
  for_limited_accounts: action,
  for_bots: action,
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const view = await updatePolicy(ctx.account.id, () => ({
    notFollowing: input.for_not_following,
    notFollowers: input.for_not_followers,
    newAccounts: input.for_new_accounts,
    privateMentions: input.for_private_mentions,
    limitedAccounts: input.for_limited_accounts,
    bots: input.for_bots,
  }));
  return renderPolicy(view);
}

export const handler = http(run, { auth: 'user', scopes: ['write:notifications'], schema });
