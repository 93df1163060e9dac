// POST /api/v1/notifications/requests/:id/dismiss (https://docs.joinmastodon.org/methods/notifications/#dismiss-request):
// the request and its filtered notifications go; the sender's next ones are filtered again.
import { z } from 'zod';
import { notFound } from '../../lib/errors';
import { http, type Ctx } from '../../lib/http';
import { dismissRequest, viewerRequest } from '../../lib/notifications/policy';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const request = await viewerRequest(ctx.account.id, input.id);
  if (!request) throw notFound();
  await dismissRequest(request);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:notifications'], schema });
