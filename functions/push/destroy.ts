// DELETE /api/v1/push/subscription (https://docs.joinmastodon.org/methods/push/#delete)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { unsubscribe } from '../../lib/push/subscription';

export const destroyInput = z.object({});

export async function run(_input: z.infer<typeof destroyInput>, ctx: Ctx<'user'>) {
  await unsubscribe(ctx);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['push'], schema: destroyInput });
