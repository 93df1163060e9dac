// POST /api/v1/push/subscription (https://docs.joinmastodon.org/methods/push/#create)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { callerOf } from '../../lib/push/caller';
import { dataInput, policyInput, subscribe, subscriptionInput } from '../../lib/push/subscription';
import { renderPushSubscription } from '../../lib/render/push_subscription';

export const schema = z.object({
  subscription: subscriptionInput,
  data: dataInput,
  policy: policyInput.optional(),
});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderPushSubscription(await subscribe(callerOf(ctx), input));
}

export const handler = http(run, { auth: 'user', scopes: ['push'], schema });
