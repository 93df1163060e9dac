// The streaming publisher: the one place events leave for streaming clients.
// The fan-out worker publishes `update` and `delete`, the notify worker
// `notification`, the filter endpoints `filters_changed`.
//
// A publish finds the subscriptions of each channel (an account's own channels
// in the online index, shared channels with one Query each; lib/db/connections.ts),
// renders the event once per receiver with their own
// flags and with their blocks, mutes and filters applied, posts Mastodon's frame
// `{"stream": [...], "event": ..., "payload": "<JSON string>"}` to each
// WebSocket connection (bounded parallelism; a 410 Gone forgets the connection),
// and appends the event to the log of every channel that has a server-sent
// event listener (lib/db/stream_log.ts).
//
// Cost: the fan-out reads the online set (its STREAM_SHARDS partitions in parallel,
// `recentOnlineListeners`) once per page; it lists
// every open stream of every account, so the recipients who listen are found
// without a read per recipient, and a follower without an open stream costs
// nothing at all. Public and hashtag channels are read a page at a time over
// their shards; a notification costs
// one Query of its recipient's channel. See lib/db/README.md, "Streaming delivery".
//
// Which receivers are filtered, as Mastodon 3.x: home, list and direct events go
// to the recipients the fan-out chose, which has applied their blocks, mutes and
// irreversible `home` filters (lib/policy); public and
// hashtag events drop for receivers who block, are blocked by or mute the
// author, the reblogged author or a mentioned account. Other (non-irreversible)
// v1 filters are the client's to apply, as with Mastodon 3.x's streaming server,
// which sends such statuses unchanged.
import { accountById, accountsByIds, type Account } from '../db/accounts';
import { renderedConversation } from '../conversations';
import {
  deleteSubscriptionItems,
  recentOnlineListeners,
  subscribersOf,
  subscribersPage,
  type OnlineListener,
  type Subscription,
} from '../db/connections';
import { listsDelivered, membershipsOf } from '../db/lists';
import { ownersHolding } from '../db/status_edits';
import type { Notification } from '../db/notifications';
import { isRemoteStatus, statusById, type Status, type Visibility } from '../db/statuses';
import { STREAM_SHARDS } from '../db/keys';
import { appendStreamEvents, type NewStreamLogEntry } from '../db/stream_log';
import { newId } from '../ids';
import { enqueue } from '../queue';
import { log } from '../log';
import { entersDirectStreams, entersPublicTimelines, mayEnterLists, reachedPublicStreams, recipientsHiding, authorListedPublicly } from '../policy';
import { renderNotification } from '../render/notification';
import { channels, closeConnection, parseStreamKey, sendFrame, streamFrame } from './connections';
import { fitStatusPayload, hiddenByFilter, personalize, renderShared, type StatusView } from './render';

export type StreamEventName = 'update' | 'status.update' | 'notification' | 'conversation' | 'delete' | 'filters_changed';
/** A new status is `update`; an edited one `status.update` (Mastodon 3.5), to the streams that hold it. */
export type StatusEventName = 'update' | 'status.update';

/** postToConnection calls in flight at once for one event. */
export const SEND_CONCURRENCY = 16;
/** Channel Queries in flight at once. */
const READ_CONCURRENCY = 16;

/**
 * Subscription items of the public and hashtag channels one call serves: the posting path's share (the
 * fan-out's first page) and each queued page's. The rest of a busy channel goes out in queued pages of the
 * same size (`stream` messages on the fan-out queue, each queuing the next), so a public post costs its
 * fan-out at most this many postToConnection calls and a bounded number of Queries however many anonymous
 * listeners there are; listeners past the first page hear it one queue hop later.
 */
export const SHARED_PAGE_SIZE = 100;

/** What one publish did (tests and logs). */
export type PublishResult = { sent: number; gone: number; logged: number; dropped: number };
const NOTHING: PublishResult = { sent: 0, gone: 0, logged: 0, dropped: 0 };

/** Runs `fn` over `items` with at most `limit` calls in flight; results in input order. */
async function mapBounded<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

/**
 * How receivers of a channel are decided:
 * - `owner`: an account's own channel (home, list, direct, notifications), which only its owner reads,
 * - `shared`: public and hashtag channels, where each receiver's blocks and mutes apply.
 */
type Target = { channel: string; scope: 'owner' | 'shared' };

type ChannelSubs = { target: Target; ws: Subscription[]; sse: boolean };

/** The subscriptions of each target channel: one Query per channel. */
async function subscriptionsOf(targets: Target[]): Promise<ChannelSubs[]> {
  const unique = [...new Map(targets.map((t) => [t.channel, t])).values()];
  const found = await mapBounded(unique, READ_CONCURRENCY, async (target) => {
    const subs = await subscribersOf(target.channel);
    return { target, ws: subs.filter((s) => s.kind === 'ws'), sse: subs.some((s) => s.kind === 'sse') };
  });
  return found.filter((c) => c.ws.length > 0 || c.sse);
}

type Online = ReadonlyMap<string, readonly OnlineListener[]>;

/**
 * The subscriptions of an account's own channel, read off the online index
 * instead of the channel: its listeners that hold `stream` (a stream key).
 */
function ownSubscriptions(online: Online, accountId: string, stream: string, target: Target): ChannelSubs | undefined {
  const request = parseStreamKey(stream);
  const listeners = (online.get(accountId) ?? []).filter((l) => l.streams.includes(stream));
  if (!request || listeners.length === 0) return undefined;
  const sub = (l: OnlineListener): Subscription => ({
    connectionId: l.listenerId,
    kind: l.kind,
    channel: target.channel,
    stream,
    frame: streamFrame(request),
    accountId,
    expiresAt: l.expiresAt,
  });
  return { target, ws: listeners.filter((l) => l.kind === 'ws').map(sub), sse: listeners.some((l) => l.kind === 'sse') };
}

/** The list streams (`list|<id>`) the online accounts listen to. */
const listenedLists = (online: Online) =>
  [...online].flatMap(([ownerId, listeners]) =>
    [...new Set(listeners.flatMap((l) => l.streams))].flatMap((key) => {
      const r = parseStreamKey(key);
      return r?.stream === 'list' && r.list ? [{ ownerId, listId: r.list, stream: key }] : [];
    }),
  );

type Outgoing = { sub: Subscription; payload: string | null };

/** Posts one frame per subscription; connections that answer 410 Gone are forgotten with their subscriptions. */
async function send(event: StreamEventName, outgoing: Outgoing[]): Promise<{ sent: number; gone: number }> {
  const gone: Subscription[] = [];
  let sent = 0;
  const fitted = new Map<string, string | undefined>();
  await mapBounded(outgoing, SEND_CONCURRENCY, async ({ sub, payload: rendered }) => {
    let payload = rendered;
    if (payload !== null && (event === 'update' || event === 'status.update')) {
      // The frame around the payload: `{"stream":[...],"event":"...","payload":}`.
      const overhead = Buffer.byteLength(JSON.stringify({ stream: sub.frame, event, payload: '' })) - 2;
      const key = `${overhead}|${payload}`;
      if (!fitted.has(key)) fitted.set(key, fitStatusPayload(payload, overhead));
      const fit = fitted.get(key);
      if (fit === undefined) {
        log.warn('streaming: a status event too large for a WebSocket frame was not sent', { connectionId: sub.connectionId, event, bytes: payload.length });
        return;
      }
      payload = fit;
    }
    const frame = payload === null ? { stream: sub.frame, event } : { stream: sub.frame, event, payload };
    try {
      if (await sendFrame(sub.connectionId, frame)) sent++;
      else gone.push(sub);
    } catch (err) {
      // One unreachable connection must not hold back the others; the next event tries again.
      log.warn('streaming: delivery failed', { err, connectionId: sub.connectionId, event });
    }
  });
  if (gone.length > 0) {
    await Promise.all([...new Set(gone.map((s) => s.connectionId))].map((id) => closeConnection(id)));
    // The connection item may already be gone (TTL); the subscriptions that answered 410 go regardless.
    await deleteSubscriptionItems(gone);
    log.info('streaming: gone connections removed', { count: new Set(gone.map((s) => s.connectionId)).size });
  }
  return { sent, gone: gone.length };
}

async function deliver(event: StreamEventName, outgoing: Outgoing[], logged: NewStreamLogEntry[], dropped = 0): Promise<PublishResult> {
  const [result] = await Promise.all([send(event, outgoing), appendStreamEvents(logged)]);
  return { ...result, logged: logged.length, dropped };
}

/** Runs a publish so that streaming can never fail (and so retry) the work that caused it. */
async function guarded(what: string, fields: Record<string, unknown>, run: () => Promise<PublishResult>): Promise<PublishResult> {
  try {
    return await run();
  } catch (err) {
    log.error(`streaming: ${what} failed`, { err, ...fields });
    return NOTHING;
  }
}

// ---- update ----

/** Accounts whose blocks and mutes hide a status on shared channels: author, reblogged author, mentions. */
const hidingAccounts = (view: StatusView): string[] => {
  const judged = view.original ?? view.status;
  return [...new Set([view.status.accountId, judged.accountId, ...judged.mentions.map((m) => m.id)])];
};

/**
 * Where a publish to shared channels stands: the channels left, the first of them done up to its shard `shard`
 * (0 when absent, as in pages queued before the channels were sharded) and, within it, up to the subscription key
 * `after`, and the channels whose server-sent-event log already holds the event (it is appended once).
 */
export type SharedCursor = { channels: string[]; shard?: number; after?: string; logged: string[] };

/** One shard of one channel: what a page reads. */
type Slot = { channel: string; shard: number };

/** The shards left to read, in order: the first channel's from `shard` on, every shard of the others. */
const slotsOf = (cursor: SharedCursor): Slot[] =>
  cursor.channels.flatMap((channel, i) =>
    Array.from({ length: STREAM_SHARDS }, (_, shard) => ({ channel, shard })).filter((s) => i > 0 || s.shard >= (cursor.shard ?? 0)),
  );

/** The subscriptions of the next SHARED_PAGE_SIZE items of the channels in `cursor`, and where the following page starts. */
async function sharedPage(cursor: SharedCursor): Promise<{ found: ChannelSubs[]; next?: SharedCursor }> {
  let budget = SHARED_PAGE_SIZE;
  let slots = slotsOf(cursor);
  // A page queued before sharding resumed after a key of the old partition: that shard is read from its start.
  let after = cursor.shard === undefined ? undefined : cursor.after;
  const logged = new Set(cursor.logged);
  const found = new Map<string, ChannelSubs>();
  while (slots.length > 0 && budget > 0) {
    // A few shards read side by side, each at most what is left of the page: most are empty. A shard resumed
    // after a key is busy: it is read alone, so that a full page does not also read the shards after it.
    const batch = slots.slice(0, after !== undefined ? 1 : READ_CONCURRENCY);
    const limit = budget;
    const pages = await Promise.all(batch.map((slot, i) => subscribersPage(slot.channel, slot.shard, i === 0 ? after : undefined, limit)));
    for (const [i, page] of pages.entries()) {
      const { channel } = batch[i]!;
      const taken = page.rows.slice(0, budget);
      budget -= taken.length;
      const subs = taken.flatMap((r) => (r.sub ? [r.sub] : []));
      const ws = subs.filter((s) => s.kind === 'ws');
      const sse = subs.some((s) => s.kind === 'sse') && !logged.has(channel);
      if (sse) logged.add(channel);
      if (ws.length > 0 || sse) {
        const seen = found.get(channel);
        if (seen) (seen.ws.push(...ws), (seen.sse ||= sse));
        else found.set(channel, { target: { channel, scope: 'shared' }, ws, sse });
      }
      if (taken.length === page.rows.length && !page.more) {
        slots = slots.slice(1);
        after = undefined;
        continue;
      }
      // The page is full within this shard (or its Query stopped short): the next read resumes after what was taken.
      if (taken.length > 0) after = taken[taken.length - 1]!.sk;
      break;
    }
  }
  if (slots.length === 0) return { found: [...found.values()] };
  const channels = [...new Set(slots.map((s) => s.channel))];
  return { found: [...found.values()], next: { channels, shard: slots[0]!.shard, ...(after !== undefined ? { after } : {}), logged: [...logged] } };
}

/**
 * The subscriptions of one page of an event to shared channels; the page after it is queued first, so the
 * rest is on its way whatever becomes of this one.
 */
async function sharedPageQueuingNext(statusId: string, event: 'update' | 'status.update' | 'delete', cursor: SharedCursor): Promise<ChannelSubs[]> {
  const { found, next } = await sharedPage(cursor);
  if (next) await enqueue('fanout', { type: 'stream', statusId, event, ...next });
  return found;
}

async function publishSharedPage(
  statusId: string,
  event: 'update' | 'status.update' | 'delete',
  cursor: SharedCursor,
  publish: (found: ChannelSubs[]) => Promise<PublishResult>,
): Promise<PublishResult> {
  const found = await sharedPageQueuingNext(statusId, event, cursor);
  return found.length > 0 ? publish(found) : NOTHING;
}

/**
 * A queued page of a status event to its public and hashtag channels (lib/timelines/fanout_queue.ts). An
 * update reads the status again (gone: nothing more is sent; its delete follows). Throws, so the page is
 * retried, when a read or the next page's enqueue fails; the page run again re-sends to its own listeners
 * only (clients key statuses by id).
 */
export async function continueSharedPublish(message: { statusId: string; event: 'update' | 'status.update' | 'delete' } & SharedCursor): Promise<PublishResult> {
  const { statusId, event } = message;
  const cursor = { channels: message.channels, shard: message.shard, after: message.after, logged: message.logged };
  if (event === 'delete') return publishSharedPage(statusId, event, cursor, (found) => publishDelete(statusId, found));
  const status = await statusById(statusId);
  const original = status?.reblogOfId ? await statusById(status.reblogOfId) : undefined;
  if (!status || (status.reblogOfId && !original)) return NOTHING;
  const view: StatusView = original ? { status, original } : { status };
  return publishSharedPage(statusId, event, cursor, (found) => publishUpdate(view, found, event));
}

async function publishUpdate(view: StatusView, found: ChannelSubs[], event: StatusEventName = 'update'): Promise<PublishResult> {
  if (found.length === 0) return NOTHING;
  const shared = await renderShared(view);
  if (!shared) return NOTHING;

  // Readers of shared channels who must not see it (their blocks and mutes); owners were chosen by the fan-out.
  const sharedViewers = new Set(found.flatMap(({ target, ws }) => (target.scope === 'shared' ? ws.flatMap((s) => (s.accountId ? [s.accountId] : [])) : [])));
  const hiding = sharedViewers.size > 0 ? await recipientsHiding(hidingAccounts(view), [...sharedViewers]) : new Set<string>();
  const visibleTo = (target: Target, accountId: string | null): boolean =>
    target.scope === 'shared' ? !accountId || !hiding.has(accountId) : accountId !== null;

  // Each receiver's filters are judged in the context they hear it in: home (their home and list channels) or public.
  const receivers = new Set<string>();
  const owners = new Set<string>();
  for (const { target, ws } of found) {
    if (target.scope === 'shared') for (const s of ws) if (s.accountId && visibleTo(target, s.accountId)) receivers.add(s.accountId);
    const owner = target.scope === 'owner' ? ownerOf(target.channel, ws) : null;
    if (owner && visibleTo(target, owner)) (receivers.add(owner), owners.add(owner));
  }
  const perViewer = await personalize(view, shared, [...receivers], (id) => (owners.has(id) ? 'home' : 'public'));
  // A receiver's `hide` filter keeps the status off their shared channels too (the fan-out already kept it off home).
  const keeps = (target: Target, accountId: string | null): boolean =>
    visibleTo(target, accountId) && !(accountId && hiddenByFilter(perViewer.get(accountId)));
  const sharedPayload = JSON.stringify(shared);
  const payloadFor = (accountId: string | null) => {
    const mine = accountId ? perViewer.get(accountId) : undefined;
    return mine ? JSON.stringify(mine) : sharedPayload;
  };

  const outgoing: Outgoing[] = [];
  const logged: NewStreamLogEntry[] = [];
  let dropped = 0;
  for (const { target, ws, sse } of found) {
    const owner = target.scope === 'owner' ? ownerOf(target.channel, ws) : null;
    for (const sub of ws) {
      const who = target.scope === 'owner' ? owner : sub.accountId;
      if (keeps(target, who)) outgoing.push({ sub, payload: payloadFor(who) });
      else dropped++;
    }
    if (!sse) continue;
    if (target.scope === 'shared') {
      // One entry for every reader of the channel: each SSE reader lays its own flags and blocks over it.
      logged.push({ channel: target.channel, id: newId(), event, payload: sharedPayload, shared: { accountIds: hidingAccounts(view) } });
    } else if (keeps(target, owner)) {
      logged.push({ channel: target.channel, id: newId(), event, payload: payloadFor(owner), shared: null });
    }
  }
  return deliver(event, outgoing, logged, dropped);
}

/**
 * The account an owner channel belongs to. Its subscriptions carry it; an
 * SSE-only channel is named after it (`timeline:<id>`, `timeline:direct:<id>`,
 * `timeline:list:<id>:<list>`).
 */
function ownerOf(channel: string, subs: Subscription[]): string | null {
  const fromSub = subs.find((s) => s.accountId)?.accountId;
  if (fromSub) return fromSub;
  const m = /^timeline:(?:direct:|list:)?(\d+)(?::|$)/.exec(channel);
  return m?.[1] ?? null;
}

/** Public and hashtag channels of a status: those whose timelines it enters (lib/policy decides). */
function sharedTargets(status: Status, hasMedia: boolean): Target[] {
  if (!entersPublicTimelines(status)) return [];
  return sharedChannels({ hasMedia, tags: status.tags, remote: isRemoteStatus(status) }).map((channel) => ({ channel, scope: 'shared' as const }));
}

/** `remote`: a status from another server, heard on `public:remote` instead of `public:local`, and on no `hashtag:local`. */
function sharedChannels(opts: { hasMedia: boolean; tags: string[]; remote?: boolean }): string[] {
  const origin = opts.remote ? 'public:remote' : 'public:local';
  const names = ['public', origin, ...(opts.hasMedia ? ['public:media', `${origin}:media`] : [])];
  return [...names.map(channels.public), ...opts.tags.flatMap((t) => (opts.remote ? [channels.hashtag(t)] : [channels.hashtag(t), channels.hashtagLocal(t)]))];
}

/** The update side of one status's fan-out: created once per status, fed page by page. */
export type StatusStream = {
  /** Home recipients (and, for a direct status, its direct recipients); only those with an open stream cost anything. */
  home(accountIds: string[]): Promise<PublishResult>;
  /** Every list the fan-out wrote the status into whose owner has an open stream. */
  lists(): Promise<PublishResult>;
  /** Public and hashtag channels. */
  shared(): Promise<PublishResult>;
  /** The accounts with an open stream (an edit is published to those whose home holds the status). */
  listening(): string[];
};

/**
 * Starts publishing a new status (or reblog): one Query of the online
 * listeners, and the reblogged original when there is one.
 */
export async function openStatusStream(status: Status, hasMedia: boolean, event: StatusEventName = 'update'): Promise<StatusStream> {
  const fields = { statusId: status.id };
  let online: Online = new Map();
  let view: StatusView = { status };
  try {
    online = await recentOnlineListeners();
    if (status.reblogOfId) {
      const original = await statusById(status.reblogOfId);
      if (original) view = { status, original };
    }
  } catch (err) {
    log.error('streaming: could not prepare a status publish', { err, ...fields });
  }
  return {
    home: (accountIds) =>
      guarded('home update', fields, async () => {
        const found: ChannelSubs[] = [];
        const direct: { owner: string; subs: ChannelSubs }[] = [];
        for (const id of new Set(accountIds)) {
          if (!online.has(id)) continue;
          const home = ownSubscriptions(online, id, 'user', { channel: channels.home(id), scope: 'owner' });
          if (home) found.push(home);
          if (!entersDirectStreams(status)) continue;
          const subs = ownSubscriptions(online, id, 'direct', { channel: channels.direct(id), scope: 'owner' });
          if (subs) direct.push({ owner: id, subs });
        }
        const [updated, conversations] = await Promise.all([publishUpdate(view, found, event), publishConversations(status, direct)]);
        return added(updated, conversations);
      }),
    lists: () =>
      guarded('list update', fields, async () => {
        if (!mayEnterLists(status)) return NOTHING;
        const listened = listenedLists(online);
        if (listened.length === 0) return NOTHING;
        // The fan-out decided which lists receive the status, and what it wrote says so; the list item under the
        // listener proves the list is theirs (a list stream names any id). One batch read of both.
        const delivered = await listsDelivered(listened, status.id);
        const found = listened
          .filter((l) => delivered(l.ownerId, l.listId))
          .flatMap((l) => ownSubscriptions(online, l.ownerId, l.stream, { channel: channels.list(l.ownerId, l.listId), scope: 'owner' }) ?? []);
        return publishUpdate(view, found, event);
      }),
    shared: () =>
      guarded('public update', fields, async () => {
        // A limited author's status (silenced, suspended, or of a server the operator silenced) stays out of the
        // public streams, as out of the public timelines (lib/policy/sanctions.ts).
        const author = await accountById(status.accountId);
        const listed = author !== undefined && (await authorListedPublicly(author));
        const channels = listed ? sharedTargets(status, hasMedia).map((t) => t.channel) : [];
        if (channels.length === 0) return NOTHING;
        return publishSharedPage(status.id, event, { channels, logged: [] }, (found) => publishUpdate(view, found, event));
      }),
    listening: () => [...online.keys()],
  };
}

/**
 * A status changed in place (an edit, or the preview card its link got later): `status.update` with its
 * current version to the accounts with an open stream whose home holds it, to the lists that hold it and
 * to the public and hashtag streams. No timeline entry is written.
 */
export async function publishStatusUpdate(status: Status): Promise<void> {
  const stream = await openStatusStream(status, status.mediaIds.length > 0, 'status.update');
  const holders = await ownersHolding(stream.listening(), status.id);
  await Promise.all([stream.home(holders), stream.lists(), stream.shared()]);
}

// ---- delete ----

/**
 * What is known of a deleted status when its fan-out runs; without it, `delete` goes to every public channel but no
 * hashtag. `remote`: it came from another server (absent in messages queued before federation: local).
 */
export type DeletedStatus = { visibility: Visibility; tags: string[]; hasMedia: boolean; remote?: boolean };

async function publishDelete(statusId: string, found: ChannelSubs[]): Promise<PublishResult> {
  const outgoing = found.flatMap(({ ws }) => ws.map((sub) => ({ sub, payload: statusId })));
  const logged = found.filter((c) => c.sse).map((c): NewStreamLogEntry => ({ channel: c.target.channel, id: newId(), event: 'delete', payload: statusId, shared: null }));
  return deliver('delete', outgoing, logged);
}

export type DeleteStream = {
  /** Accounts whose home held the status: their `user` streams hear the delete. */
  home(accountIds: string[]): Promise<PublishResult>;
  /** Direct streams of the author and the mentioned accounts, the author's list channels, and the public channels. */
  finish(accountId: string, mentionIds: string[], deleted?: DeletedStatus): Promise<PublishResult>;
};

/** Starts publishing the deletion of a status (or the undoing of a reblog): one Query of the online listeners. */
export async function openDeleteStream(statusId: string): Promise<DeleteStream> {
  const fields = { statusId };
  let online: Online = new Map();
  try {
    online = await recentOnlineListeners();
  } catch (err) {
    log.error('streaming: could not prepare a delete publish', { err, ...fields });
  }
  const own = (ids: string[], stream: string, channelOf: (id: string) => string) =>
    [...new Set(ids)].flatMap((id) => ownSubscriptions(online, id, stream, { channel: channelOf(id), scope: 'owner' }) ?? []);
  return {
    home: (accountIds) =>
      guarded('home delete', fields, async () => {
        const found = own(accountIds, 'user', channels.home);
        return found.length === 0 ? NOTHING : publishDelete(statusId, found);
      }),
    finish: (accountId, mentionIds, deleted) =>
      guarded('delete', fields, async () => {
        const found: ChannelSubs[] = [];
        if (!deleted || entersDirectStreams(deleted)) found.push(...own([accountId, ...mentionIds], 'direct', channels.direct));
        const listened = !deleted || mayEnterLists(deleted) ? listenedLists(online) : [];
        if (listened.length > 0) {
          // The lists that held it were those containing its author (one Query of the author's memberships, which
          // also name each list's owner: a list stream names any id).
          const containing = new Set((await membershipsOf(accountId)).map((m) => `${m.ownerId}:${m.listId}`));
          for (const l of listened.filter((x) => containing.has(`${x.ownerId}:${x.listId}`))) {
            const subs = ownSubscriptions(online, l.ownerId, l.stream, { channel: channels.list(l.ownerId, l.listId), scope: 'owner' });
            if (subs) found.push(subs);
          }
        }
        const shared = !deleted ? sharedChannels({ hasMedia: true, tags: [] }) : reachedPublicStreams(deleted) ? sharedChannels(deleted) : [];
        // The shared channels' first page goes with the owners' streams; the rest is queued (SHARED_PAGE_SIZE).
        if (shared.length > 0) found.push(...(await sharedPageQueuingNext(statusId, 'delete', { channels: shared, logged: [] })));
        return publishDelete(statusId, found);
      }),
  };
}

/** Two publishes' counts together. */
const added = (a: PublishResult, b: PublishResult): PublishResult => ({ sent: a.sent + b.sent, gone: a.gone + b.gone, logged: a.logged + b.logged, dropped: a.dropped + b.dropped });

/**
 * A new direct status reaches each listening participant's `direct` stream as Mastodon sends it there: a
 * `conversation` event carrying that participant's conversation (its last status, the other participants, unread),
 * not the status as an `update`. One read of the conversation per listening participant; none when nobody listens.
 */
async function publishConversations(status: Status, direct: { owner: string; subs: ChannelSubs }[]): Promise<PublishResult> {
  if (direct.length === 0) return NOTHING;
  const owners = await accountsByIds(direct.map((d) => d.owner));
  const outgoing: Outgoing[] = [];
  const logged: NewStreamLogEntry[] = [];
  await Promise.all(
    direct.map(async ({ owner, subs }) => {
      const viewer = owners.get(owner);
      const rendered = viewer ? await renderedConversation(viewer, status.conversationId) : undefined;
      if (!rendered) return;
      const payload = JSON.stringify(rendered);
      for (const sub of subs.ws) outgoing.push({ sub, payload });
      if (subs.sse) logged.push({ channel: subs.target.channel, id: newId(), event: 'conversation', payload, shared: null });
    }),
  );
  return deliver('conversation', outgoing, logged);
}

// ---- notification ----

/**
 * Publishes a new notification to its recipient's notification channel (the
 * `user` and `user:notification` streams): one Query when nobody listens. The
 * notify worker has already applied blocks, mutes and irreversible filters.
 */
export function publishNotification(notification: Notification, recipient: Account): Promise<PublishResult> {
  return guarded('notification', { notificationId: notification.id }, async () => {
    const channel = channels.notifications(recipient.id);
    const found = await subscriptionsOf([{ channel, scope: 'owner' }]);
    if (found.length === 0) return NOTHING;
    const rendered = await renderNotification(notification, recipient);
    if (!rendered) return NOTHING;
    const payload = JSON.stringify(rendered);
    const outgoing = found.flatMap(({ ws }) => ws.map((sub) => ({ sub, payload })));
    const logged = found.filter((c) => c.sse).map((): NewStreamLogEntry => ({ channel, id: newId(), event: 'notification', payload, shared: null }));
    return deliver('notification', outgoing, logged);
  });
}

// ---- filters_changed ----

/** Tells the owner's `user` streams that their keyword filters changed (no payload, as Mastodon). */
export function publishFiltersChanged(accountId: string): Promise<PublishResult> {
  return guarded('filters_changed', { accountId }, async () => {
    const channel = channels.home(accountId);
    const found = await subscriptionsOf([{ channel, scope: 'owner' }]);
    const outgoing = found.flatMap(({ ws }) => ws.map((sub) => ({ sub, payload: null })));
    const logged = found.filter((c) => c.sse).map((): NewStreamLogEntry => ({ channel, id: newId(), event: 'filters_changed', payload: null, shared: null }));
    return deliver('filters_changed', outgoing, logged);
  });
}
