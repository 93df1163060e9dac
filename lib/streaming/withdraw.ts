// Access ends when it is withdrawn: revoking a token (POST /oauth/revoke),
// disabling a login or deleting an app ends every open stream of the tokens
// concerned at once, as Mastodon's streaming server does on its `kill` message.
//
// The streams of a token are found under it (`TOKENSTREAMS#<token id>`, one
// consistent Query per token; lib/db/connections.ts):
// - a WebSocket connection is closed through the Management API
//   (DeleteConnection) and its items are deleted at once, so nothing more is
//   delivered to it even if API Gateway could not be reached;
// - a server-sent-event listener is told through a `kill` entry in the log of
//   one of its channels, which its poll reads anyway (lib/streaming/sse.ts): it
//   ends its response within one poll (250 ms), and polling costs nothing more
//   than before. Its registration is deleted here too, so publishers stop
//   logging for it.
//
// Callers withdraw the access first (delete the token, set `disabled`) and then
// call this. A stream being opened at that moment either committed its entry
// before (and is found here) or meets the withdrawal in its opening
// transaction's check, so none slips between the two.
import { deleteTokenStreams, streamsOfToken, type TokenStream } from '../db/connections';
import { appendStreamEvents, type NewStreamLogEntry } from '../db/stream_log';
import { newId } from '../ids';
import { log } from '../log';
import { endConnection } from './connections';

/** Queries and Management API calls in flight at once. */
const CONCURRENCY = 16;

async function eachBounded<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, lane));
}

/** What a withdrawal ended. */
export type Ended = { websockets: number; sse: number };

/** Ends every open WebSocket connection and SSE response of these tokens. */
export async function endStreamsOfTokens(tokenIds: string[]): Promise<Ended> {
  const found: TokenStream[] = [];
  await eachBounded([...new Set(tokenIds)], async (tokenId) => {
    found.push(...(await streamsOfToken(tokenId)));
  });
  const sockets = found.filter((s) => s.kind === 'ws');
  const listeners = found.filter((s) => s.kind === 'sse' && s.bindings.some((b) => b.channels.length > 0));

  // One `kill` entry per channel, naming the listeners that read it; a listener reads all its channels, so one is enough.
  const byChannel = new Map<string, string[]>();
  for (const l of listeners) {
    const channel = l.bindings.find((b) => b.channels.length > 0)!.channels[0]!;
    byChannel.set(channel, [...(byChannel.get(channel) ?? []), l.listenerId]);
  }
  const kills: NewStreamLogEntry[] = [...byChannel].map(([channel, ends]) => ({ channel, id: newId(), event: 'kill', payload: null, shared: null, ends }));

  let failures = 0;
  await Promise.all([
    appendStreamEvents(kills),
    eachBounded(sockets, async (s) => {
      try {
        await endConnection(s.listenerId);
      } catch (err) {
        // Its items are gone (no more deliveries) and its next subscribe is refused; only the socket stays open.
        failures++;
        log.error('streaming: could not close a withdrawn connection', { err, connectionId: s.listenerId });
      }
    }),
  ]);
  // SSE registrations, and the token entries of connections whose own item had already gone (TTL, 410).
  await deleteTokenStreams(found);
  if (found.length > 0) log.info('streaming: ended the streams of withdrawn tokens', { tokens: tokenIds.length, websockets: sockets.length, sse: listeners.length, failures });
  return { websockets: sockets.length, sse: listeners.length };
}
