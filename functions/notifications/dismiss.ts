// POST /api/v1/notifications/:id/dismiss (https://docs.joinmastodon.org/methods/notifications/#dismiss)
import { z } from 'zod';
import { deleteNotification } from '../../lib/db/notifications';
import { notFound } from '../../lib/errors';
import { http, type Ctx } from '../../lib/http';
import { isId } from '../../lib/ids';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const removed = isId(input.id) ? await deleteNotification(ctx.account.id, input.id) : undefined;
  if (!removed) throw notFound();
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:notifications'], schema });
