// DELETE /api/v1/push/subscription (https://docs.joinmastodon.org/methods/push/#delete)
import { z } from 'zod';
import { http, type Ctx } from '../../lib/http';
import { unsubscribe } from '../../lib/push/subscription';

export const schema = z.object({});

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  await unsubscribe(ctx);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['push'], schema });
