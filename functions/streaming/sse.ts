// GET /api/v1/streaming/{user,user/notification,public,public/local,public/remote,hashtag,hashtag/local,list,direct}
// (https://docs.joinmastodon.org/methods/streaming/#http): the streams over server-sent events.
// One function serves every path: the path only picks the stream, and one function
// URL (RESPONSE_STREAM) keeps a single warm pool and one route target in front of it.
import { z } from 'zod';
import type { Ctx } from '../../lib/http';
import { streamHttp, type StreamOut } from '../../lib/http/stream';
import { CONNECT_SCOPES, streamPrincipal } from '../../lib/streaming/connections';
import { openSseSession, serveSse, sseStreamRequest } from '../../lib/streaming/sse';

/** `tag`, `list` and `only_media` are validated with Mastodon's own messages by the stream parser. */
export const schema = z.object({ tag: z.unknown(), list: z.unknown(), only_media: z.unknown() });

export async function run(input: z.infer<typeof schema>, ctx: Ctx<'optional'>, out: StreamOut): Promise<void> {
  const request = sseStreamRequest(ctx.path, input);
  const principal = await streamPrincipal(ctx.token ? { token: ctx.token, account: ctx.account } : undefined);
  const access = ctx.token ? { tokenId: ctx.token.id, tokenHash: ctx.token.tokenHash, accountId: ctx.token.accountId } : undefined;
  const session = openSseSession(request, principal, access);
  out.header('Content-Type', 'text/event-stream');
  out.header('Cache-Control', 'no-store');
  // Proxies in front of the function URL must not buffer the stream.
  out.header('X-Accel-Buffering', 'no');
  await serveSse(session, ctx.account, out, { lastEventId: ctx.headers['last-event-id'] });
}

export const handler = streamHttp(run, { auth: 'optional', scopes: CONNECT_SCOPES, schema });
