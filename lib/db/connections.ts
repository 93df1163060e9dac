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
// keeps one small item in the `ONLINE` partition, with the set of streams it
// listens to (kept in the same transactions as the subscriptions). The fan-out
// reads that partition once per status and intersects it with the recipients:
// a follower without an open stream costs no read and no write, and one with
// an open stream needs no further read to be found.
import { z } from 'zod';
import { keys, type Key } from './keys';
import { batchWrite, deleteItem, expiresIn, getItem, keyString, nowIso, queryAll, transact, type TransactItem } from './table';

/** API Gateway closes a WebSocket after 2 hours; a day is a safe upper bound. */
export const CONNECTION_TTL_SECONDS = 24 * 60 * 60;

/** At most this many streams per connection. */
export const MAX_STREAMS_PER_CONNECTION = 50;

export const connectionItem = z.object({
  connectionId: z.string(),
  /** null for an anonymous connection or an app token. */
  accountId: z.string().nullable(),
  tokenId: z.string().nullable().default(null),
  scopes: z.array(z.string()).default([]),
  /** Stream keys (see lib/streaming/connections.ts); DynamoDB drops an empty set, hence the default. */
  streams: z.set(z.string()).default(new Set()).transform((s) => [...s].sort()),
  connectedAt: z.string(),
  expiresAt: z.number(),
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

/** Adds or removes a stream on the online item in a subscription's transaction (recreating it if a 410 cleanup removed it meanwhile). */
const onlineStreamUpdate = (conn: Connection, binding: StreamBinding, op: 'ADD' | 'DELETE'): TransactItem[] =>
  conn.accountId
    ? [
        {
          Update: {
            Key: keys.onlineListener(conn.accountId, conn.connectionId),
            UpdateExpression: `SET accountId = :a, listenerId = :l, expiresAt = if_not_exists(expiresAt, :e) ${op} #streams :s`,
            ExpressionAttributeNames: { '#streams': 'streams' },
            ExpressionAttributeValues: { ':a': conn.accountId, ':l': conn.connectionId, ':e': conn.expiresAt, ':s': new Set([binding.stream]) },
          },
        },
      ]
    : [];

/** Records a new connection and its initial stream, if any, in one transaction. */
export async function saveConnection(
  input: Pick<Connection, 'connectionId' | 'accountId' | 'tokenId' | 'scopes'>,
  initial?: StreamBinding,
): Promise<Connection> {
  const expiresAt = expiresIn(CONNECTION_TTL_SECONDS);
  const item = {
    ...keys.connection(input.connectionId),
    connectionId: input.connectionId,
    accountId: input.accountId,
    tokenId: input.tokenId,
    scopes: input.scopes,
    connectedAt: nowIso(),
    expiresAt,
    ...(initial ? { streams: new Set([initial.stream]) } : {}),
  };
  await transact([
    { Put: { Item: item } },
    ...(input.accountId ? [{ Put: { Item: onlinePut(input.accountId, input.connectionId, expiresAt, 'ws', initial ? [initial.stream] : []) } }] : []),
    ...(initial ? subscriptionPuts(input, initial, expiresAt).map((Item): TransactItem => ({ Put: { Item } })) : []),
  ]);
  return connectionItem.parse(item);
}

export const connectionById = (connectionId: string) => getItem(keys.connection(connectionId), connectionItem, true);

/**
 * Adds a stream to a connection: the set grows atomically (ADD) and the channel
 * subscriptions are written in the same transaction. Answers false when the
 * connection is gone or already holds the maximum number of streams.
 */
export async function addStream(conn: Connection, binding: StreamBinding): Promise<boolean> {
  const result = await transact([
    {
      Update: {
        Key: keys.connection(conn.connectionId),
        UpdateExpression: 'ADD streams :s',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(streams) OR size(streams) < :max OR contains(streams, :one))',
        ExpressionAttributeValues: { ':s': new Set([binding.stream]), ':max': MAX_STREAMS_PER_CONNECTION, ':one': binding.stream },
      },
    },
    ...subscriptionPuts(conn, binding, conn.expiresAt).map((Item): TransactItem => ({ Put: { Item } })),
    ...onlineStreamUpdate(conn, binding, 'ADD'),
  ]);
  return result.ok;
}

/** Removes a stream from a connection and deletes its channel subscriptions, in one transaction. */
export async function removeStream(conn: Connection, binding: StreamBinding): Promise<void> {
  await transact([
    {
      Update: {
        Key: keys.connection(conn.connectionId),
        UpdateExpression: 'DELETE streams :s',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':s': new Set([binding.stream]) },
      },
    },
    ...binding.channels.map((channel): TransactItem => ({ Delete: { Key: keys.channelSubscription(channel, conn.connectionId, binding.stream) } })),
    ...onlineStreamUpdate(conn, binding, 'DELETE'),
  ]);
}

/** Deletes a connection item; answers what it held, so its subscriptions can be deleted too. */
export const deleteConnection = (connectionId: string) =>
  deleteItem(keys.connection(connectionId), connectionItem, { ConditionExpression: 'attribute_exists(PK)' });

/** Deletes a connection's (or SSE listener's) channel subscriptions and, for an account, its online item. */
export async function deleteSubscriptions(connectionId: string, bindings: StreamBinding[], accountId: string | null = null): Promise<void> {
  const deletes = bindings.flatMap((b) => b.channels.map((channel) => keys.channelSubscription(channel, connectionId, b.stream)));
  if (accountId) deletes.push(keys.onlineListener(accountId, connectionId));
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
 * under each channel, kind `sse`, and its online item for an account. Plain
 * puts, so refreshing is the same call.
 */
export async function saveSseListener(
  listener: { listenerId: string; accountId: string | null },
  bindings: StreamBinding[],
  ttlSeconds = SSE_LISTENER_TTL_SECONDS,
): Promise<void> {
  const expiresAt = expiresIn(ttlSeconds);
  const conn = { connectionId: listener.listenerId, accountId: listener.accountId };
  await batchWrite([
    ...bindings.flatMap((b) => subscriptionPuts(conn, b, expiresAt, 'sse')),
    ...(listener.accountId ? [onlinePut(listener.accountId, listener.listenerId, expiresAt, 'sse', bindings.map((b) => b.stream))] : []),
  ]);
}

/**
 * Every open stream of every account, by account: one Query of the `ONLINE`
 * partition (every page; an item is ~100 bytes, so one 4 KB read unit covers
 * ~40 listeners). Expired items (TTL deletion is lazy) are left out.
 */
export async function onlineListeners(): Promise<Map<string, OnlineListener[]>> {
  const items = await queryAll(
    {
      KeyConditionExpression: 'PK = :p',
      ExpressionAttributeValues: { ':p': keys.onlinePartition() },
      ProjectionExpression: 'accountId, listenerId, #kind, #streams, expiresAt',
      ExpressionAttributeNames: { '#kind': 'kind', '#streams': 'streams' },
    },
    onlineItem,
  );
  const now = Math.floor(Date.now() / 1000);
  const byAccount = new Map<string, OnlineListener[]>();
  for (const item of items) {
    if (item.expiresAt <= now) continue;
    byAccount.set(item.accountId, [...(byAccount.get(item.accountId) ?? []), item]);
  }
  return byAccount;
}

/** The accounts with an open stream (`onlineListeners`, keys only). */
export const onlineAccounts = async (): Promise<Set<string>> => new Set((await onlineListeners()).keys());

/** Every live subscription to a channel (for publishers). */
export async function subscribersOf(channel: string): Promise<Subscription[]> {
  const items = await queryAll(
    { KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.channelPartition(channel) } },
    subscriptionItem,
  );
  const now = Math.floor(Date.now() / 1000);
  return items.filter((s) => s.expiresAt > now);
}
