// WebSocket connections of the streaming API and their subscriptions.
//
// A connection item holds who is connected (account, token scopes) and the set
// of streams it subscribed to. Each subscription is also written under the
// channel its events are published to (`CHANNEL#<channel>`), so a publisher
// finds the connections of a channel with one Query. Both expire by TTL, a
// backstop for connections whose $disconnect never ran.
//
// Server-sent-event listeners register the same subscription items (kind
// `sse`, a short TTL they refresh while open): a publisher that finds one
// appends the event to the channel's log (lib/db/stream_log.ts) instead of
// posting it to a connection.
//
// Who is listening at all: every authenticated connection or SSE listener also
// keeps one small item in the online set, with the set of streams it listens to
// (kept in the same transactions as the subscriptions). The fan-out reads that
// set and intersects it with the recipients: a follower without an open stream
// costs no read and no write, and one with an open stream needs no further read
// to be found.
//
// No hot partition (issue 27): the online set is spread over STREAM_SHARDS
// partitions and so is each public or hashtag channel, an item going to the
// shard of its connection id (lib/db/keys.ts, where the arithmetic is), so
// connects and subscribes spread their writes. The publisher reads the online
// set through `recentOnlineListeners`: every shard in parallel, 16 Queries
// however many listeners there are; and a shared channel's pages through
// `subscribersPage`, one shard at a time. Nothing is kept across publishes
// (see recentOnlineListeners).
// A per-account marker read by BatchGet for each fan-out page's recipients
// would bound a read by the page instead, but at 0.5 RRU per recipient a page of
// 1,000 followers would cost 500 RRU against ~1 RRU per 40 listeners for the
// whole set, and list streams need every listener anyway.
//
// Whose access it is: every connection or listener opened with a token also
// keeps one item under the token (`TOKENSTREAMS#<token id>`), so that revoking
// the token, disabling its login or deleting its app finds its streams with one
// Query per token (lib/streaming/withdraw.ts). Opening a stream checks, in the
// same transaction as its writes, that the token still exists and its login is
// not disabled; adding a subscription to an open connection writes first and
// checks after (addStream says why): either way a withdrawal that lands first is
// never undone by a stream that was being opened at that moment.
import { z } from 'zod';
import * as keys from './keys';
import type { Key } from './keys';
import { batchGet, batchWrite, deleteItem, expiresIn, getItem, keyString, nowIso, query, queryAll, transact, updateItem, type TransactItem } from './table';

/** API Gateway closes a WebSocket after 2 hours; a day is a safe upper bound. */
export const CONNECTION_TTL_SECONDS = 24 * 60 * 60;

/** At most this many streams per connection. */
export const MAX_STREAMS_PER_CONNECTION = 50;

export const connectionItem = z.object({
  connectionId: z.string(),
  /** null for an anonymous connection or an app token. */
  accountId: z.string().nullable(),
  tokenId: z.string().nullable().default(null),
  /** The token's key (its SHA-256, not a credential): each subscribe checks the token is still there. */
  tokenHash: z.string().nullable().default(null),
  scopes: z.array(z.string()).default([]),
  /** Stream keys (see lib/streaming/connections.ts); DynamoDB drops an empty set, hence the default. */
  streams: z.set(z.string()).default(new Set()).transform((s) => [...s].sort()),
  connectedAt: z.string(),
  expiresAt: z.number(),
  /** The connection slots it holds (its address's, its token's), released when it closes. */
  slots: z.array(z.object({ PK: z.string(), SK: z.string() })).default([]),
});
export type Connection = z.infer<typeof connectionItem>;

export const subscriptionItem = z.object({
  /** The WebSocket connection id, or the SSE listener id. */
  connectionId: z.string(),
  /** `ws`: deliver with postToConnection; `sse`: append to the channel's event log. */
  kind: z.enum(['ws', 'sse']).default('ws'),
  channel: z.string(),
  /** The stream key this subscription belongs to. */
  stream: z.string(),
  /** The `stream` array of Mastodon's message framing, e.g. ["hashtag", "cats"]. */
  frame: z.array(z.string()),
  accountId: z.string().nullable(),
  expiresAt: z.number(),
});
export type Subscription = z.infer<typeof subscriptionItem>;

/** A stream and the channels it listens to. */
export type StreamBinding = { stream: string; frame: string[]; channels: string[] };

const subscriptionPuts = (conn: Pick<Connection, 'connectionId' | 'accountId'>, binding: StreamBinding, expiresAt: number, kind: 'ws' | 'sse' = 'ws') =>
  binding.channels.map((channel) => ({
    ...keys.channelSubscription(channel, conn.connectionId, binding.stream),
    ...subscriptionItem.parse({ connectionId: conn.connectionId, kind, channel, stream: binding.stream, frame: binding.frame, accountId: conn.accountId, expiresAt }),
  }));

export const onlineItem = z.object({
  accountId: z.string(),
  /** The WebSocket connection id, or the SSE listener id. */
  listenerId: z.string(),
  kind: z.enum(['ws', 'sse']).default('ws'),
  /** The stream keys it listens to, as on the connection item. */
  streams: z.set(z.string()).default(new Set()).transform((s) => [...s].sort()),
  expiresAt: z.number(),
});
export type OnlineListener = z.infer<typeof onlineItem>;

const onlinePut = (accountId: string, listenerId: string, expiresAt: number, kind: 'ws' | 'sse', streams: string[]) => ({
  ...keys.onlineListener(accountId, listenerId),
  accountId,
  listenerId,
  kind,
  expiresAt,
  // DynamoDB has no empty set.
  ...(streams.length > 0 ? { streams: new Set(streams) } : {}),
});

export const tokenStreamItem = z.object({
  tokenId: z.string(),
  /** The WebSocket connection id, or the SSE listener id. */
  listenerId: z.string(),
  kind: z.enum(['ws', 'sse']),
  accountId: z.string().nullable(),
  /** SSE: its streams and their channels (a WebSocket connection lists its streams on its own item). */
  bindings: z.array(z.object({ stream: z.string(), channels: z.array(z.string()) })).default([]),
  expiresAt: z.number(),
});
export type TokenStream = z.infer<typeof tokenStreamItem>;

const tokenStreamPut = (entry: TokenStream) => ({ ...keys.tokenStream(entry.tokenId, entry.listenerId), ...tokenStreamItem.parse(entry) });

/** The access a stream was opened with: its token and, for a user token, the account. */
export type Access = { tokenId: string; tokenHash: string; accountId: string | null };

/** Why a stream may not go on: its token is gone, or its login was disabled. */
export type Withdrawn = 'revoked' | 'disabled';

/** Transaction checks that `access` still holds; they come first in a transaction, so a failed index names the reason. */
const accessChecks = (access: Access): TransactItem[] => [
  { ConditionCheck: { Key: keys.token(access.tokenHash), ConditionExpression: 'attribute_exists(PK)' } },
  ...(access.accountId
    ? [
        {
          ConditionCheck: {
            Key: keys.account(access.accountId),
            // A suspended account's login is withdrawn as a disabled one's.
            ConditionExpression:
              'attribute_exists(PK) AND (attribute_not_exists(disabled) OR disabled = :no) AND (attribute_not_exists(suspendedAt) OR suspendedAt = :null)',
            ExpressionAttributeValues: { ':no': false, ':null': null },
          },
        },
      ]
    : []),
];

/** Which of `accessChecks(access)` failed, if one did (the token's is first, the login's second when there is an account). */
const withdrawnBy = (access: Access, failed: number[]): Withdrawn | undefined =>
  failed.includes(0) ? 'revoked' : access.accountId && failed.includes(1) ? 'disabled' : undefined;

// ---- connection slots ----
//
// Open connections are limited per source address and per token by slots: items
// `STREAMSLOTS#<scope>#<subject>` / `<n>`, n below the limit, each naming the
// connection holding it. A connection takes a free slot with a conditional put in
// the same transaction that records it, so two connections racing for the last
// slot cannot both win, and no counter exists that a lost $disconnect could leave
// too high: a slot whose connection is gone (API Gateway answers 410) is taken back
// when the slots are full (lib/streaming/connections.ts), and every slot expires
// with its connection's TTL as a last resort.

export const slotItem = z.object({ connectionId: z.string(), expiresAt: z.number() });
export type Slot = { key: Key; slot: number; connectionId: string };

/** The taken slots of an address or token: one consistent Query (a slot taken a moment ago is seen). Expired ones are free. */
export async function takenSlots(scope: 'addr' | 'token', subject: string): Promise<Slot[]> {
  const items = await queryAll(
    { KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.streamSlotsPartition(scope, subject) }, ConsistentRead: true },
    z.object({ PK: z.string(), SK: z.string() }).and(slotItem),
  );
  const now = Math.floor(Date.now() / 1000);
  return items.filter((i) => i.expiresAt > now).map((i) => ({ key: { PK: i.PK, SK: i.SK }, slot: Number(i.SK), connectionId: i.connectionId }));
}

/** Frees a slot, provided `connectionId` still holds it (a late $disconnect must not free a slot taken back and given to another). */
export const releaseSlot = (key: Key, connectionId: string) =>
  deleteItem(key, slotItem, { ConditionExpression: 'connectionId = :c', ExpressionAttributeValues: { ':c': connectionId } });

const slotPut = (key: Key, connectionId: string, expiresAt: number): TransactItem => ({
  Put: {
    Item: { ...key, connectionId, expiresAt },
    // A slot left by an expired connection is free (TTL deletion is lazy).
    ConditionExpression: 'attribute_not_exists(PK) OR expiresAt <= :now',
    ExpressionAttributeValues: { ':now': Math.floor(Date.now() / 1000) },
  },
});

/**
 * Records a new connection and its initial stream, if any, in one transaction,
 * with its entry under its token, provided the token and login still hold, and
 * taking `slots` (free when read): `slotTaken` when another connection took one first.
 */
export async function saveConnection(
  input: Pick<Connection, 'connectionId' | 'accountId' | 'tokenId' | 'scopes'> & { tokenHash?: string | null },
  initial?: StreamBinding,
  slots: Key[] = [],
): Promise<{ ok: true; connection: Connection } | { ok: false; withdrawn: Withdrawn } | { ok: false; slotTaken: true }> {
  const expiresAt = expiresIn(CONNECTION_TTL_SECONDS);
  const access = input.tokenId && input.tokenHash ? { tokenId: input.tokenId, tokenHash: input.tokenHash, accountId: input.accountId } : undefined;
  const item = {
    ...keys.connection(input.connectionId),
    connectionId: input.connectionId,
    accountId: input.accountId,
    tokenId: input.tokenId,
    tokenHash: input.tokenHash ?? null,
    scopes: input.scopes,
    connectedAt: nowIso(),
    expiresAt,
    ...(initial ? { streams: new Set([initial.stream]) } : {}),
    slots,
  };
  const items: TransactItem[] = [
    ...(access ? accessChecks(access) : []),
    { Put: { Item: item } },
    ...(access ? [{ Put: { Item: tokenStreamPut({ ...access, listenerId: input.connectionId, kind: 'ws', bindings: [], expiresAt }) } }] : []),
    ...(input.accountId ? [{ Put: { Item: onlinePut(input.accountId, input.connectionId, expiresAt, 'ws', initial ? [initial.stream] : []) } }] : []),
    ...(initial ? subscriptionPuts(input, initial, expiresAt).map((Item): TransactItem => ({ Put: { Item } })) : []),
  ];
  // The slots last, so a failed index at or past `firstSlot` names a slot.
  const firstSlot = items.length;
  const result = await transact([...items, ...slots.map((key) => slotPut(key, input.connectionId, expiresAt))]);
  if (!result.ok) {
    const withdrawn = access && withdrawnBy(access, result.failed);
    if (withdrawn) return { ok: false, withdrawn };
    if (result.failed.some((i) => i >= firstSlot)) return { ok: false, slotTaken: true };
    return { ok: false, withdrawn: 'revoked' };
  }
  return { ok: true, connection: connectionItem.parse(item) };
}

export const connectionById = (connectionId: string) => getItem(keys.connection(connectionId), connectionItem, true);

/** Raw attributes: the checks below read two of them only. */
const rawItem = z.record(z.unknown());

/**
 * Does `access` still hold now (strongly consistent reads: a withdrawal made a moment ago is seen)? Answers why not.
 */
async function withdrawnNow(access: Access): Promise<Withdrawn | undefined> {
  const tokenKey = keys.token(access.tokenHash);
  const accountKey = access.accountId ? keys.account(access.accountId) : undefined;
  const found = await batchGet(accountKey ? [tokenKey, accountKey] : [tokenKey], rawItem, undefined, { consistent: true });
  if (!found.has(keyString(tokenKey))) return 'revoked';
  if (!accountKey) return undefined;
  const account = found.get(keyString(accountKey));
  if (!account || account.disabled === true || (account.suspendedAt !== undefined && account.suspendedAt !== null)) return 'disabled';
  return undefined;
}

/** Adds or removes a stream on the online item of an account's connection (recreating the item if a 410 cleanup removed it meanwhile). */
async function changeOnlineStreams(conn: Connection, binding: StreamBinding, op: 'ADD' | 'DELETE'): Promise<void> {
  if (!conn.accountId) return;
  await updateItem(
    {
      Key: keys.onlineListener(conn.accountId, conn.connectionId),
      UpdateExpression: `SET accountId = :a, listenerId = :l, expiresAt = if_not_exists(expiresAt, :e) ${op} #streams :s`,
      ExpressionAttributeNames: { '#streams': 'streams' },
      ExpressionAttributeValues: { ':a': conn.accountId, ':l': conn.connectionId, ':e': conn.expiresAt, ':s': new Set([binding.stream]) },
    },
    rawItem,
  );
}

/**
 * Adds a stream to a connection. Not one transaction, unlike opening a connection: the subscribes a client sends
 * together arrive as concurrent invocations, and transactions on the same connection, token and account items would
 * cancel each other (TransactionConflict) and retry in turn, taking seconds for a handful of streams (issue 29). Single
 * writes to one item never conflict, so:
 *  1. the stream joins the connection's set (one conditional update: the connection exists and holds fewer than the
 *     maximum), else `full`;
 *  2. its channel subscriptions and the online item are written;
 *  3. then the token and login are read (strongly consistent). A withdrawal deletes the token or disables the login
 *     first and then reads the connection to end it (lib/streaming/withdraw.ts): either this read sees the
 *     withdrawal, and the stream is taken back out, or the withdrawal came after these writes and finds them.
 * A write that fails in step 2 takes the stream back out of the set before the error goes on.
 */
export async function addStream(conn: Connection, binding: StreamBinding): Promise<'added' | 'full' | Withdrawn> {
  const listed = await updateItem(
    {
      Key: keys.connection(conn.connectionId),
      UpdateExpression: 'ADD streams :s',
      ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(streams) OR size(streams) < :max OR contains(streams, :one))',
      ExpressionAttributeValues: { ':s': new Set([binding.stream]), ':max': MAX_STREAMS_PER_CONNECTION, ':one': binding.stream },
    },
    rawItem,
  );
  if (!listed) return 'full';
  try {
    await Promise.all([batchWrite(subscriptionPuts(conn, binding, conn.expiresAt), []), changeOnlineStreams(conn, binding, 'ADD')]);
  } catch (err) {
    await removeStream(conn, binding).catch(() => undefined);
    throw err;
  }
  const access = conn.tokenId && conn.tokenHash ? { tokenId: conn.tokenId, tokenHash: conn.tokenHash, accountId: conn.accountId } : undefined;
  const withdrawn = access ? await withdrawnNow(access) : undefined;
  if (withdrawn) {
    await removeStream(conn, binding);
    return withdrawn;
  }
  return 'added';
}

/**
 * Removes a stream from a connection: its channel subscriptions first (nothing more is delivered for it), then the
 * online item and the connection's set. Single writes, for the reason addStream gives.
 */
export async function removeStream(conn: Connection, binding: StreamBinding): Promise<void> {
  await batchWrite([], binding.channels.map((channel) => keys.channelSubscription(channel, conn.connectionId, binding.stream)));
  await Promise.all([
    changeOnlineStreams(conn, binding, 'DELETE'),
    updateItem(
      {
        Key: keys.connection(conn.connectionId),
        UpdateExpression: 'DELETE streams :s',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':s': new Set([binding.stream]) },
      },
      rawItem,
    ),
  ]);
}

/** Deletes a connection item; answers what it held, so its subscriptions can be deleted too. */
export const deleteConnection = (connectionId: string) =>
  deleteItem(keys.connection(connectionId), connectionItem, { ConditionExpression: 'attribute_exists(PK)' });

/** Deletes a connection's (or SSE listener's) channel subscriptions and, for an account, its online item; with its token, its entry there. */
export async function deleteSubscriptions(connectionId: string, bindings: Pick<StreamBinding, 'stream' | 'channels'>[], accountId: string | null = null, tokenId: string | null = null): Promise<void> {
  const deletes = bindings.flatMap((b) => b.channels.map((channel) => keys.channelSubscription(channel, connectionId, b.stream)));
  if (accountId) deletes.push(keys.onlineListener(accountId, connectionId));
  if (tokenId) deletes.push(keys.tokenStream(tokenId, connectionId));
  await batchWrite([], deletes);
}

/**
 * Deletes subscription items as a publisher found them (a connection that
 * answered 410 Gone), with the online items of their connections: the
 * connection item, which lists them, may be gone already (TTL).
 */
export async function deleteSubscriptionItems(subs: Pick<Subscription, 'channel' | 'connectionId' | 'stream' | 'accountId'>[]): Promise<void> {
  const deletes = new Map<string, Key>();
  for (const s of subs) {
    const sub = keys.channelSubscription(s.channel, s.connectionId, s.stream);
    deletes.set(keyString(sub), sub);
    if (s.accountId) {
      const online = keys.onlineListener(s.accountId, s.connectionId);
      deletes.set(keyString(online), online);
    }
  }
  await batchWrite([], [...deletes.values()]);
}

/** SSE listeners hold their registration this long and refresh it well before it lapses. */
export const SSE_LISTENER_TTL_SECONDS = 120;

/**
 * Registers (or refreshes) a server-sent-event listener: its subscriptions
 * under each channel, kind `sse`, its online item for an account and its entry
 * under its token. Plain puts, so refreshing is the same call. With `access`
 * (the first registration), one transaction that also checks the token and
 * login still hold; answers the reason when they do not.
 */
export async function saveSseListener(
  listener: { listenerId: string; accountId: string | null; tokenId?: string | null },
  bindings: StreamBinding[],
  ttlSeconds = SSE_LISTENER_TTL_SECONDS,
  access?: Access,
): Promise<Withdrawn | undefined> {
  const expiresAt = expiresIn(ttlSeconds);
  const conn = { connectionId: listener.listenerId, accountId: listener.accountId };
  const puts = [
    ...bindings.flatMap((b) => subscriptionPuts(conn, b, expiresAt, 'sse')),
    ...(listener.accountId ? [onlinePut(listener.accountId, listener.listenerId, expiresAt, 'sse', bindings.map((b) => b.stream))] : []),
    ...(listener.tokenId
      ? [
          tokenStreamPut({
            tokenId: listener.tokenId,
            listenerId: listener.listenerId,
            kind: 'sse',
            accountId: listener.accountId,
            bindings: bindings.map((b) => ({ stream: b.stream, channels: b.channels })),
            expiresAt,
          }),
        ]
      : []),
  ];
  if (!access) {
    await batchWrite(puts);
    return undefined;
  }
  const result = await transact([...accessChecks(access), ...puts.map((Item): TransactItem => ({ Put: { Item } }))]);
  return result.ok ? undefined : (withdrawnBy(access, result.failed) ?? 'revoked');
}

/**
 * The open streams of a token: one consistent Query of its partition (a stream
 * whose opening transaction committed before the token was deleted is found).
 * Expired entries are left out.
 */
export async function streamsOfToken(tokenId: string): Promise<TokenStream[]> {
  const items = await queryAll(
    { KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.tokenStreamsPartition(tokenId) }, ConsistentRead: true },
    tokenStreamItem,
  );
  const now = Math.floor(Date.now() / 1000);
  return items.filter((t) => t.expiresAt > now);
}

/**
 * Forgets streams found under their tokens, in BatchWrites: an SSE listener's
 * subscriptions, and for both kinds the online item and the token entry (a
 * WebSocket connection's subscriptions go with its connection item, which lists them).
 */
export async function deleteTokenStreams(streams: TokenStream[]): Promise<void> {
  const deletes = streams.flatMap((s) => [
    ...s.bindings.flatMap((b) => b.channels.map((channel) => keys.channelSubscription(channel, s.listenerId, b.stream))),
    ...(s.accountId ? [keys.onlineListener(s.accountId, s.listenerId)] : []),
    keys.tokenStream(s.tokenId, s.listenerId),
  ]);
  await batchWrite([], deletes);
}

/**
 * Every open stream of every account, by account: one Query of each online shard, in parallel (every page; an
 * item is ~100 bytes, so one 4 KB read unit covers ~40 listeners). Expired items (TTL deletion is lazy) are left out.
 */
export async function onlineListeners(): Promise<Map<string, OnlineListener[]>> {
  const shards = await Promise.all(
    Array.from({ length: keys.STREAM_SHARDS }, (_, shard) =>
      queryAll(
        {
          KeyConditionExpression: 'PK = :p',
          ExpressionAttributeValues: { ':p': keys.onlineShardPartition(shard) },
          ProjectionExpression: 'accountId, listenerId, #kind, #streams, expiresAt',
          ExpressionAttributeNames: { '#kind': 'kind', '#streams': 'streams' },
        },
        onlineItem,
      ),
    ),
  );
  const now = Math.floor(Date.now() / 1000);
  const byAccount = new Map<string, OnlineListener[]>();
  for (const item of shards.flat()) {
    if (item.expiresAt <= now) continue;
    byAccount.set(item.accountId, [...(byAccount.get(item.accountId) ?? []), item]);
  }
  return byAccount;
}

/**
 * The online set for a publish: every shard, read now. Nothing is kept past the read: an answer kept for a few
 * seconds hid a stream opened on another container for as long, and its first events were lost for good (the
 * streaming end-to-end suites showed it: a post made just after opening a stream never came). The reads stay
 * bounded by the shards, not by the listeners.
 */
export const recentOnlineListeners = (): Promise<ReadonlyMap<string, readonly OnlineListener[]>> => onlineListeners();

/** The accounts with an open stream (`onlineListeners`, keys only). */
export const onlineAccounts = async (): Promise<Set<string>> => new Set((await onlineListeners()).keys());

/** Every live subscription to a channel, on all its shards (tests; the publisher pages shared channels with `subscribersPage`). */
export async function subscribersOf(channel: string): Promise<Subscription[]> {
  const parts = await Promise.all(
    keys.channelPartitions(channel).map((p) => queryAll({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': p } }, subscriptionItem)),
  );
  const now = Math.floor(Date.now() / 1000);
  return parts.flat().filter((s) => s.expiresAt > now);
}

type SubscribersPage = { rows: { sk: string; sub?: Subscription }[]; more: boolean };

/**
 * Up to `limit` subscription items of one shard of a channel (`shard`: 0 for an account's own channel, which has
 * one partition) in key order, starting after the key `after` (an SK): one Query of a bounded page, so a
 * publisher's work per call is bounded whatever the number of listeners. Each row has
 * its SK (a cursor to resume after it) and its subscription, or none when it has expired (TTL deletion is lazy).
 * `more`: the shard has items past this page.
 */
export function subscribersPage(channel: string, shard: number, after: string | undefined, limit: number): Promise<SubscribersPage> {
  const pk = keys.isShardedChannel(channel) ? keys.channelShardPartition(channel, shard) : keys.channelPartition(channel);
  return readSubscribersPage(pk, after, limit);
}

async function readSubscribersPage(pk: string, after: string | undefined, limit: number): Promise<SubscribersPage> {
  const page = await query(
    {
      KeyConditionExpression: 'PK = :p',
      ExpressionAttributeValues: { ':p': pk },
      Limit: limit,
      ...(after !== undefined ? { ExclusiveStartKey: { PK: pk, SK: after } } : {}),
    },
    z.object({ SK: z.string() }).and(subscriptionItem),
  );
  const now = Math.floor(Date.now() / 1000);
  return {
    rows: page.items.map(({ SK, ...sub }) => ({ sk: SK, ...(sub.expiresAt > now ? { sub } : {}) })),
    more: page.lastKey !== undefined,
  };
}
