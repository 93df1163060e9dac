// POST /users/:username/inbox and POST /inbox (ActivityPub §7, server-to-server;
// signatures as https://docs.joinmastodon.org/spec/security/#http): the activity is
// verified and queued here, then handled by the inbox worker; the sender gets 202.
import { z } from 'zod';
import { receiveInboxRequest } from '../../lib/federation/inbox_request';
import { http, Reply, type Ctx } from '../../lib/http';

/** `username` for a personal inbox; absent for the shared inbox. */
export const schema = z.object({ username: z.string().min(1).optional() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'public'>) {
  const query = ctx.event.rawQueryString ? `?${ctx.event.rawQueryString}` : '';
  await receiveInboxRequest(
    { method: ctx.event.requestContext.http.method, path: `${ctx.path}${query}`, headers: ctx.headers, body: ctx.rawBody ?? Buffer.alloc(0) },
    input.username,
  );
  return new Reply(202, '', {}, [], 'raw');
}

export const handler = http(run, { auth: 'public', schema, rawBody: true });
