// WebSocket connections of the streaming API and their subscriptions.
//
// A connection item holds who is connected (account, token scopes) and the set
// of streams it subscribed to. Each subscription is also written under the
// channel its events are published to (`CHANNEL#<channel>`), so a publisher
// finds the connections of a channel with one Query. Both expire by TTL, a
// backstop for connections whose $disconnect never ran.
import { z } from 'zod';
import { keys } from './keys';
import { batchWrite, deleteItem, expiresIn, getItem, nowIso, queryAll, transact, type TransactItem } from './table';

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
  connectionId: z.string(),
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

const subscriptionPuts = (conn: Pick<Connection, 'connectionId' | 'accountId'>, binding: StreamBinding, expiresAt: number) =>
  binding.channels.map((channel) => ({
    ...keys.channelSubscription(channel, conn.connectionId, binding.stream),
    ...subscriptionItem.parse({ connectionId: conn.connectionId, channel, stream: binding.stream, frame: binding.frame, accountId: conn.accountId, expiresAt }),
  }));

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
  ]);
}

/** Deletes a connection item; answers what it held, so its subscriptions can be deleted too. */
export const deleteConnection = (connectionId: string) =>
  deleteItem(keys.connection(connectionId), connectionItem, { ConditionExpression: 'attribute_exists(PK)' });

export async function deleteSubscriptions(connectionId: string, bindings: StreamBinding[]): Promise<void> {
  const deletes = bindings.flatMap((b) => b.channels.map((channel) => keys.channelSubscription(channel, connectionId, b.stream)));
  await batchWrite([], deletes);
}

/** Every live subscription to a channel (for publishers). */
export async function subscribersOf(channel: string): Promise<Subscription[]> {
  const items = await queryAll(
    { KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.channelPartition(channel) } },
    subscriptionItem,
  );
  const now = Math.floor(Date.now() / 1000);
  return items.filter((s) => s.expiresAt > now);
}
