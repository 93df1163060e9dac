// POST /api/v1/notifications/requests/:id/accept (https://docs.joinmastodon.org/methods/notifications/#accept-request):
// the request's notifications become normal ones, and the sender's later ones are never filtered.
import { z } from 'zod';
import { notFound } from '../../lib/errors';
import { http, type Ctx } from '../../lib/http';
import { acceptRequest, viewerRequest } from '../../lib/notifications/policy';

export const schema = z.object({ id: z.string() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'user'>) {
  const request = await viewerRequest(ctx.account.id, input.id);
  if (!request) throw notFound();
  await acceptRequest(request);
  return {};
}

export const handler = http(run, { auth: 'user', scopes: ['write:notifications'], schema });
