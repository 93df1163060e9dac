// PUT /api/v1/push/subscription (https://docs.joinmastodon.org/methods/push/#update)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { changeAlerts, dataInput, policyInput } from '../../lib/push/subscription';
import { renderPushSubscription } from '../../lib/render/push_subscription';

/** Only `data` (and `policy`) count; a `subscription` sent along is ignored, as Mastodon does. */
export const schema = z.object({ data: dataInput, policy: policyInput.optional() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderPushSubscription(await changeAlerts(ctx, input));
}

export const handler = http(run, { auth: 'user', scopes: ['push'], schema });
