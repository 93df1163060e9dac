// The streaming API over server-sent events (GET /api/v1/streaming/<stream>).
// A listener registers under the channels of its stream like a WebSocket
// subscription (kind `sse`, a TTL it refreshes), so publishers log their
// events for it (lib/db/stream_log.ts); it then polls those logs and writes
// each new entry as `event:` / `data:` / `id:` lines, with `:thump` heartbeat
// comments in between, until the client leaves, the invocation nears its end,
// or MAX_RESPONSE_MS have passed (a function URL does not say when a client left).
// The client then reconnects with `Last-Event-ID` and resumes where it was: the
// registration lives on for its TTL, so events keep being logged meanwhile.
//
// Cost per open listener, in DynamoDB read units (eventually consistent, on
// demand): one Query per channel per poll, 0.5 RRU while there is nothing new,
// so 4 polls a second cost 2 RRU/s per channel (the `user` stream has two:
// home and notifications). Entries of the last LOOKBACK_MS are read again on
// every poll (so an entry whose write landed late is not skipped), about
// LOOKBACK_MS / pollMs extra reads of each entry. The registration is
// rewritten every REFRESH_MS (one BatchWrite).
//
// Withdrawn access (token revoked, login disabled, app deleted) reaches a
// listener as a `kill` entry naming it in one of its channels' logs
// (lib/streaming/withdraw.ts): the poll that reads it ends the response, so the
// listener learns of it within one poll without any read of its own. Its first
// registration is one transaction that checks the token and login still hold,
// so a withdrawal that lands while the stream opens refuses it.
import { randomUUID } from 'node:crypto';
import type { Account } from '../db/accounts';
import { deleteSubscriptions, saveSseListener, SSE_LISTENER_TTL_SECONDS, type Access, type StreamBinding } from '../db/connections';
import { STREAM_LOG_TTL_SECONDS, streamEventsAfter, type StreamLogEntry } from '../db/stream_log';
import { notFound } from '../errors';
import { hiddenFor, hidesAuthor, type Hidden } from '../policy';
import { idAt, isId } from '../ids';
import { authorizeStream, bindingFor, parseStreamRequest, withdrawnError, type Principal, type StreamRequest } from './connections';
import { personalizePayload } from './render';

/** The SSE paths and the stream each serves (`only_media` picks the media variant, as Mastodon). */
const PATHS: Record<string, (onlyMedia: boolean) => string> = {
  '/api/v1/streaming/user': () => 'user',
  '/api/v1/streaming/user/notification': () => 'user:notification',
  '/api/v1/streaming/public': (media) => (media ? 'public:media' : 'public'),
  '/api/v1/streaming/public/local': (media) => (media ? 'public:local:media' : 'public:local'),
  '/api/v1/streaming/public/remote': (media) => (media ? 'public:remote:media' : 'public:remote'),
  '/api/v1/streaming/hashtag': () => 'hashtag',
  '/api/v1/streaming/hashtag/local': () => 'hashtag:local',
  '/api/v1/streaming/list': () => 'list',
  '/api/v1/streaming/direct': () => 'direct',
};

const truthy = (v: unknown) => typeof v === 'string' && ['1', 'true', 't', 'on', 'yes'].includes(v.toLowerCase());

/** The stream a path and its query ask for, validated as the WebSocket side validates `stream`, `tag` and `list`. */
export function sseStreamRequest(path: string, query: Record<string, unknown>): StreamRequest {
  const name = PATHS[path.replace(/\/+$/, '')];
  if (!name) throw notFound();
  return parseStreamRequest({ stream: name(truthy(query.only_media)), tag: query.tag, list: query.list });
}

/** One server-sent-event listener, before it starts. */
export type SseSession = {
  listenerId: string;
  principal: Principal;
  request: StreamRequest;
  binding: StreamBinding;
  /** The token it was opened with (none for a visitor): withdrawing it ends the listener. */
  access: Access | undefined;
};

/** Checks that `principal` may read the stream (401 otherwise, as the WebSocket side) and names the listener. */
export function openSseSession(request: StreamRequest, principal: Principal, access?: Access): SseSession {
  authorizeStream(request, principal);
  return { listenerId: `sse-${randomUUID()}`, principal, request, binding: bindingFor(request, principal), access };
}

/** Where a listener writes; `write` answers false once the client is gone. */
export type SseOut = { write(chunk: string): Promise<boolean>; readonly signal: AbortSignal };

export type SseOptions = {
  /** The `Last-Event-ID` the client sent on reconnecting. */
  lastEventId?: string;
  /** Time between two polls of the logs; the brief is at most 250 ms. */
  pollMs?: number;
  /** A comment goes out when nothing else did for this long (Mastodon: 15 s). */
  heartbeatMs?: number;
  /** The registration (and the reader's blocks and mutes) are refreshed this often. */
  refreshMs?: number;
  /**
   * The response ends after this long even if the client is still there: a function
   * URL does not tell the function that its client left, so this bounds what an
   * abandoned stream costs; a client reconnects with Last-Event-ID and loses nothing.
   */
  maxMs?: number;
};

export const POLL_MS = 250;
export const MAX_RESPONSE_MS = 5 * 60_000;
export const HEARTBEAT_MS = 10_000;
const REFRESH_MS = Math.floor((SSE_LISTENER_TTL_SECONDS * 1000) / 3);
/** Entries written later than their id says (a slow write) are still picked up within this window. */
export const LOOKBACK_MS = 2_000;
const PAGE = 100;

/** One event in SSE framing: `event:`, `data:` (Mastodon sends `undefined` for filters_changed) and `id:` lines. */
export const sseFrame = (entry: Pick<StreamLogEntry, 'event' | 'id'>, payload: string | null): string =>
  `event: ${entry.event}\ndata: ${payload ?? 'undefined'}\nid: ${entry.id}\n\n`;

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

const maxId = (a: string, b: string) => (BigInt(a) >= BigInt(b) ? a : b);

/**
 * Serves a listener until its client leaves or `out.signal` aborts (the
 * invocation's deadline): registers it, writes the events logged for its
 * channels after `lastEventId` (or after now) and polls for more, refreshing
 * the registration (and the reader's blocks and mutes) as it goes.
 */
export async function serveSse(session: SseSession, viewer: Account | undefined, out: SseOut, opts: SseOptions = {}): Promise<void> {
  const pollMs = opts.pollMs ?? POLL_MS;
  const heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_MS;
  const refreshMs = opts.refreshMs ?? REFRESH_MS;
  const maxMs = opts.maxMs ?? MAX_RESPONSE_MS;
  const { listenerId, principal, binding, access } = session;
  const channels = binding.channels;
  const listener = { listenerId, accountId: principal.accountId, tokenId: access?.tokenId ?? null };
  const register = () => saveSseListener(listener, [binding]);

  const startedAt = Date.now();
  // Before the first byte: a withdrawn token or login is answered as the API answers it.
  const withdrawn = await saveSseListener(listener, [binding], SSE_LISTENER_TTL_SECONDS, access);
  if (withdrawn) throw withdrawnError(withdrawn);
  // Resume after what the client saw, but never before what the log still holds.
  const oldest = idAt(startedAt - STREAM_LOG_TTL_SECONDS * 1000);
  const resumeFrom = opts.lastEventId && isId(opts.lastEventId) ? maxId(opts.lastEventId, oldest) : idAt(startedAt);
  let hidden: Hidden | undefined = viewer ? await hiddenFor(viewer.id) : undefined;
  let refreshedAt = startedAt;
  let wroteAt = startedAt;
  /** Ids written, newer than the floor of the next read (pruned as the floor moves). */
  const sent = new Set<string>();
  let previousPoll = startedAt;

  const shows = (entry: StreamLogEntry): boolean => {
    if (!entry.shared || !viewer || !hidden) return true;
    const { accountIds } = entry.shared;
    if (accountIds.includes(viewer.id)) return true;
    return !accountIds.some((id) => hidesAuthor(hidden!, id));
  };
  const payloadOf = async (entry: StreamLogEntry): Promise<string | null | undefined> =>
    entry.shared && viewer && (entry.event === 'update' || entry.event === 'status.update') && entry.payload ? personalizePayload(entry.payload, viewer.id) : entry.payload;

  if (!(await out.write(':)\n'))) return;
  // The registration is not removed at the end: it outlives the response by up to
  // its TTL, so what is published while the client reconnects is logged for it.
  while (!out.signal.aborted && Date.now() - startedAt < maxMs) {
    const pollStarted = Date.now();
    const floor = maxId(resumeFrom, idAt(previousPoll - LOOKBACK_MS));
    previousPoll = pollStarted;
    for (const id of sent) if (BigInt(id) <= BigInt(floor)) sent.delete(id);
    const read = (await Promise.all(channels.map((channel) => readAfter(channel, floor)))).flat();
    if (read.some((e) => e.event === 'kill' && e.ends?.includes(listenerId))) {
      // Access withdrawn: nothing more goes out, and the registration goes now rather than at its TTL
      // (the withdrawal deleted it too, but a refresh may have raced it).
      await deleteSubscriptions(listenerId, [binding], listener.accountId, listener.tokenId);
      return;
    }
    const entries = read
      .filter((e) => e.event !== 'kill' && !sent.has(e.id))
      .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    for (const entry of entries) {
      sent.add(entry.id);
      if (!shows(entry)) continue;
      const payload = await payloadOf(entry);
      // A shared status the reader's `hide` filter matches is not theirs to hear (personalizePayload answers undefined).
      if (payload === undefined) continue;
      if (!(await out.write(sseFrame(entry, payload)))) return;
      wroteAt = Date.now();
    }
    const now = Date.now();
    if (now - wroteAt >= heartbeatMs) {
      if (!(await out.write(':thump\n'))) return;
      wroteAt = now;
    }
    if (now - refreshedAt >= refreshMs) {
      refreshedAt = now;
      await register();
      if (viewer) hidden = await hiddenFor(viewer.id);
    }
    await pause(Math.max(0, pollMs - (Date.now() - pollStarted)), out.signal);
  }
}

/** Every entry of a channel after `afterId`, page by page. */
async function readAfter(channel: string, afterId: string): Promise<StreamLogEntry[]> {
  const out: StreamLogEntry[] = [];
  let after = afterId;
  for (;;) {
    const page = await streamEventsAfter(channel, after, PAGE);
    out.push(...page);
    if (page.length < PAGE) return out;
    after = page.at(-1)!.id;
  }
}

