// The per-channel event log read by server-sent-event listeners. A publisher
// appends an event here only for channels that have at least one SSE listener
// (lib/db/connections.ts, kind `sse`); each SSE handler polls the channels of
// its stream for entries after the last one it sent. Entries are ordered by a
// snowflake event id (the SSE `id:`, so `Last-Event-ID` resumes) and expire
// after a few minutes: the log bridges reconnects, it is not a history.
import { z } from 'zod';
import { padId } from '../ids';
import * as keys from './keys';
import { batchWrite, expiresIn, query } from './table';

/** How long an entry stays readable: a client reconnecting later than this misses what it did not see. */
export const STREAM_LOG_TTL_SECONDS = 5 * 60;

/**
 * `kill` is no event a client sees: it tells the listeners it names that their
 * access was withdrawn (token revoked, login disabled, app deleted), and they end
 * (lib/streaming/withdraw.ts). It travels in the log they already poll, so
 * noticing it costs them no extra read.
 */
export const streamEvents = ['update', 'status.update', 'notification', 'conversation', 'delete', 'filters_changed', 'kill', 'announcement', 'announcement.reaction', 'announcement.delete'] as const;

export const streamLogItem = z.object({
  channel: z.string(),
  /** Snowflake; the SSE `id:` line. */
  id: z.string(),
  event: z.enum(streamEvents),
  /** The payload as Mastodon sends it: a JSON string (a status id for `delete`); absent for `filters_changed`. */
  payload: z.string().nullable().default(null),
  /**
   * Set on events logged once for every reader of a shared channel (public,
   * hashtag): the accounts whose blocks and mutes hide the event from a reader
   * (author, reblogged author, mentions). Each reader applies its own view.
   */
  shared: z.object({ accountIds: z.array(z.string()) }).nullable().default(null),
  /** On a `kill` entry: the listener ids that must end. */
  ends: z.array(z.string()).optional(),
  expiresAt: z.number(),
});
export type StreamLogEntry = z.infer<typeof streamLogItem>;

export type NewStreamLogEntry = Omit<StreamLogEntry, 'expiresAt'>;

/** Appends events (25 per BatchWrite, unprocessed items retried). */
export async function appendStreamEvents(entries: NewStreamLogEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const expiresAt = expiresIn(STREAM_LOG_TTL_SECONDS);
  await batchWrite(entries.map((e) => ({ ...keys.streamLogEntry(e.channel, e.id), ...streamLogItem.parse({ ...e, expiresAt }) })));
}

/**
 * A channel's events with ids after `afterId`, oldest first: one Query of the
 * channel's log (`SK > afterId`), at most `limit` entries. Expired entries
 * that TTL has not removed yet are left out.
 */
export async function streamEventsAfter(channel: string, afterId: string, limit = 100): Promise<StreamLogEntry[]> {
  const page = await query(
    {
      KeyConditionExpression: 'PK = :p AND SK > :after',
      ExpressionAttributeValues: { ':p': keys.streamLogPartition(channel), ':after': padId(afterId) },
      ScanIndexForward: true,
      Limit: limit,
    },
    streamLogItem,
  );
  const now = Math.floor(Date.now() / 1000);
  return page.items.filter((e) => e.expiresAt > now);
}
