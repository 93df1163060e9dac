// GET /api/v1/notifications/:id (https://docs.joinmastodon.org/methods/notifications/#get-one)
import { z } from 'zod';
import { notificationOf } from '../../lib/db/notifications';
import { notFound } from '../../lib/errors';
import { http, type Ctx } from '../../lib/http';
import { isId } from '../../lib/ids';
import { supportedTypes } from '../../lib/notifications/query';
import { renderNotification } from '../../lib/render/notification';

export const schema = z.object({ id: z.string(), ...supportedTypes });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const notification = isId(input.id) ? await notificationOf(ctx.account.id, input.id) : undefined;
  const rendered = notification ? await renderNotification(notification, ctx.account, { supportedTypes: input.supported_types }) : undefined;
  if (!rendered) throw notFound();
  return rendered;
}

export const handler = http(run, { auth: 'user', scopes: ['read:notifications'], schema });
