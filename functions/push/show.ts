// GET /api/v1/push/subscription (https://docs.joinmastodon.org/methods/push/#get)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { currentSubscription } from '../../lib/push/subscription';
import { renderPushSubscription } from '../../lib/render/push_subscription';

export const schema = z.object({});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  return renderPushSubscription(await currentSubscription(ctx));
}

export const handler = http(run, { auth: 'user', scopes: ['push'], schema });
