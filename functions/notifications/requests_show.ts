// GET /api/v1/notifications/requests/:id (https://docs.joinmastodon.org/methods/notifications/#get-one-request):
// one of the viewer's notification requests; 404 for an id that is not theirs.
import { z } from 'zod';
import { notFound } from '../../lib/errors';
import { http, type Ctx } from '../../lib/http';
import { viewerRequest } from '../../lib/notifications/policy';
import { renderNotificationRequests } from '../../lib/render/notification_request';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const request = await viewerRequest(ctx.account.id, input.id);
  const [rendered] = request ? await renderNotificationRequests([request], ctx.account) : [];
  if (!rendered) throw notFound();
  return rendered;
}

export const handler = http(run, { auth: 'user', scopes: ['read:notifications'], schema });
