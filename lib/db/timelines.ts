// Timeline entries: home feeds (written by the fan-out worker, and the author's
// own entry at posting time), the public timelines and hashtag timelines
// (written with the status). An entry carries what a timeline query filters on,
// so a page is one Query plus one batch read of the statuses.
import type { QueryInput } from '../aws';
import { z } from 'zod';
import { pageRange, type IdRange } from '../paging';
import { followItem, type Follow } from './follows';
import { idRangeKeyCondition } from './id_range';
import * as keys from './keys';
import type { PublicScope } from './keys';
import * as gsi1 from './gsi1';
import { isRemoteStatus, type Status } from './statuses';
import { batchGet, batchWrite, expiresIn, getItem, putItem, query, updateItem, type Item } from './table';

export type { PublicScope };

/** A page of a timeline: its statuses, newest first, and the ids the Link header points from. */
export type TimelinePage = { statuses: Status[]; newest?: string; oldest?: string };

export const timelineEntry = z.object({
  statusId: z.string(),
  /** Author of the entry (the reblogger for a reblog). */
  accountId: z.string(),
  reblogOfId: z.string().nullable().default(null),
  hasMedia: z.boolean().default(false),
  local: z.boolean().default(true),
});
export type TimelineEntry = z.infer<typeof timelineEntry>;

const entryOf = (status: Status, hasMedia: boolean): TimelineEntry => ({
  statusId: status.id,
  accountId: status.accountId,
  reblogOfId: status.reblogOfId,
  hasMedia,
  local: !isRemoteStatus(status),
});

export const homeEntryRecord = (ownerId: string, status: Status, hasMedia: boolean) => ({
  ...keys.homeEntry(ownerId, status.id),
  ...entryOf(status, hasMedia),
});

/**
 * Public and hashtag entries of a status; none unless `listed` (whether it enters
 * the public timelines is lib/policy's entersPublicTimelines, asked by the caller).
 * Besides `all`, a status enters `local` or `remote` by where it was posted.
 */
export function publicEntryRecords(status: Status, hasMedia: boolean, listed: boolean) {
  if (!listed) return [];
  const entry = entryOf(status, hasMedia);
  return [
    { ...keys.publicEntry('all', status.id), ...entry },
    { ...keys.publicEntry(entry.local ? 'local' : 'remote', status.id), ...entry },
    ...status.tags.map((tag) => ({ ...keys.tagEntry(tag, status.id), ...entry })),
  ];
}

// ---- reading timelines (max_id / since_id / min_id as key ranges) ----

/** Newest-first order of ids (ascending when reading a min_id page). */
const compareIds = (a: string, b: string) => {
  const x = BigInt(a);
  const y = BigInt(b);
  return x === y ? 0 : x < y ? -1 : 1;
};

/**
 * Reads timeline entries from one or more partitions (a hashtag timeline with
 * `any[]` merges several), in page order, de-duplicated by status id; each
 * call to `next(n)` answers the following n entries, fewer only at the end.
 */
export function timelineEntries(partitions: string[], range: IdRange) {
  const bounds = pageRange(range);
  const ascending = bounds?.ascending ?? false;
  type Source = { pk: string; buffer: TimelineEntry[]; lastKey?: Item; done: boolean };
  const sources: Source[] = [...new Set(partitions)].map((pk) => ({ pk, buffer: [], done: bounds === undefined }));
  const seen = new Set<string>();
  const before = (a: TimelineEntry, b: TimelineEntry) => (ascending ? compareIds(a.statusId, b.statusId) < 0 : compareIds(a.statusId, b.statusId) > 0);

  const fill = async (source: Source, want: number) => {
    const cond = idRangeKeyCondition({ partitionAttr: 'PK', sortAttr: 'SK', partition: source.pk }, range);
    if (source.done || source.buffer.length >= want || !cond) return;
    const input: Omit<QueryInput, 'TableName'> = {
      ...cond,
      Limit: Math.max(want - source.buffer.length, 1),
      ExclusiveStartKey: source.lastKey,
    };
    const page = await query(input, timelineEntry);
    source.buffer.push(...page.items);
    source.lastKey = page.lastKey;
    source.done = page.lastKey === undefined;
  };

  return {
    /** True once every partition has been read to its end and nothing is buffered. */
    get exhausted() {
      return sources.every((s) => s.done && s.buffer.length === 0);
    },
    async next(n: number): Promise<TimelineEntry[]> {
      // Each partition holds at least n buffered entries (or is finished), so the
      // n first of the merge are final; a partition needs more than one Query only
      // when DynamoDB stops at its 1 MB page size.
      for (;;) {
        await Promise.all(sources.map((s) => fill(s, n)));
        if (sources.every((s) => s.done || s.buffer.length >= n)) break;
      }
      const out: TimelineEntry[] = [];
      while (out.length < n) {
        let best: Source | undefined;
        for (const s of sources) {
          const head = s.buffer[0];
          if (head && (!best || before(head, best.buffer[0]!))) best = s;
        }
        if (!best) break;
        const entry = best.buffer.shift()!;
        if (seen.has(entry.statusId)) continue;
        seen.add(entry.statusId);
        out.push(entry);
      }
      return out;
    },
  };
}

/** Bounds on what a filtered page (only_media, all[], none[]) may read: rounds, and entries per round. */
export const MAX_FILTER_ROUNDS = 8;
const MAX_ROUND_ENTRIES = 400;

/**
 * Reads entries until `limit` kept items are found, the partitions end, or the
 * round bound is reached. `keep` turns a batch of entries into the items kept
 * (in the same order), which may cost reads (statuses for tag filters). The
 * first round reads exactly what is missing, so an unfiltered page is one
 * Query; later rounds read twice as much each time, and a page cut back to
 * `limit` pages on from its last item, so nothing is skipped.
 */
export async function collectPage<T>(
  source: ReturnType<typeof timelineEntries>,
  limit: number,
  keep: (entries: TimelineEntry[]) => Promise<T[]> | T[],
): Promise<T[]> {
  const out: T[] = [];
  for (let round = 0; out.length < limit && round < MAX_FILTER_ROUNDS && !source.exhausted; round++) {
    const batch = await source.next(Math.min(MAX_ROUND_ENTRIES, (limit - out.length) * 2 ** round));
    if (batch.length === 0) break;
    out.push(...(await keep(batch)));
  }
  return out.slice(0, limit);
}

/** Entries of the public timeline (`local`: only this instance's statuses; `remote`: only other servers') in an id range. */
export const publicTimelineEntries = (scope: PublicScope, range: IdRange) => timelineEntries([keys.publicPartition(scope)], range);

/** Entries of one or more hashtag timelines, merged, in an id range. */
export const tagTimelineEntries = (tags: string[], range: IdRange) => timelineEntries(tags.map((t) => keys.tagPartition(t)), range);

/** A page of an account's home feed, newest first (ascending then reversed for min_id). */
export async function homeTimelinePage(ownerId: string, range: IdRange, limit: number, keep: (e: TimelineEntry) => boolean = () => true) {
  const source = timelineEntries([keys.homePartition(ownerId)], range);
  const entries = await collectPage(source, limit, (batch) => batch.filter(keep));
  return range.min_id !== undefined ? entries.reverse() : entries;
}

// ---- fan-out writes ----

/** One page of an account's followers (GSI1), with the key to continue from. */
export async function followerEdgesFrom(followedId: string, startKey?: Item, pageSize?: number): Promise<{ items: Follow[]; lastKey?: Item }> {
  return query(
    {
      IndexName: gsi1.INDEX,
      Limit: pageSize,
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': gsi1.followersPartition(followedId) },
      ExclusiveStartKey: startKey,
    },
    followItem,
  );
}

/**
 * The page of `followedId`'s followers that follows follower `after` (from the first without it), and the
 * follower the next page starts after when there may be one. The follower id is the whole cursor: the
 * index's sort key is the follower id, so a fan-out message carries a plain id rather than a raw key.
 */
export async function followersAfter(followedId: string, after: string | undefined, pageSize: number): Promise<{ items: Follow[]; next?: string }> {
  const start = after === undefined ? undefined : { ...keys.follow(after, followedId), ...gsi1.follower(followedId, after) };
  const page = await followerEdgesFrom(followedId, start, pageSize);
  const last = page.items.at(-1);
  return { items: page.items, next: page.lastKey && last ? last.followerId : undefined };
}

/** Writes (or removes) home entries, 25 per BatchWrite, several batches in flight. */
export async function writeHomeEntries(puts: ReturnType<typeof homeEntryRecord>[], deletes: { PK: string; SK: string }[] = [], parallel = 8): Promise<void> {
  const chunk = 25;
  const groups: { puts: typeof puts; deletes: typeof deletes }[] = [];
  for (let i = 0; i < puts.length; i += chunk) groups.push({ puts: puts.slice(i, i + chunk), deletes: [] });
  for (let i = 0; i < deletes.length; i += chunk) groups.push({ puts: [], deletes: deletes.slice(i, i + chunk) });
  let next = 0;
  const lane = async () => {
    while (next < groups.length) {
      const group = groups[next++]!;
      await batchWrite(group.puts, group.deletes);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, groups.length) }, lane));
}

/** Which of `accountIds` follow `followedId`: their edges, in one batch read (100 keys per call). */
export async function edgesTo(accountIds: string[], followedId: string): Promise<Map<string, Follow>> {
  const found = await batchGet(accountIds.map((id) => keys.follow(id, followedId)), followItem);
  const byFollower = new Map<string, Follow>();
  for (const edge of found.values()) byFollower.set(edge.followerId, edge);
  return byFollower;
}

export const homeEntryKey = (ownerId: string, statusId: string) => keys.homeEntry(ownerId, statusId);

// ---- fan-out pages (lib/timelines/fanout_queue.ts) ----

export type FanoutKind = 'create' | 'delete';

/**
 * A page's marker: `claimed` by the delivery of the page before it that is about to enqueue it, `sent` once
 * enqueued, `done` once the page itself has written everything.
 */
const fanoutPageItem = z.object({ state: z.enum(['claimed', 'sent', 'done']), claimedAt: z.number() });

/** As long as the fan-out queue keeps a message (MessageRetentionPeriod, 4 days): every delivery of a page finds its marker. */
const FANOUT_PAGE_TTL_S = 4 * 24 * 3600;

/**
 * Claims the enqueuing of the fan-out page starting after follower `after`. True when the caller must enqueue it:
 * nobody had, or a claim older than `staleMs` was left by an invocation that died before enqueuing. False when it
 * is enqueued already, or being enqueued by a live invocation (whose own message is retried if it dies).
 */
export async function claimFanoutPage(statusId: string, kind: FanoutKind, after: string, staleMs: number, now = Date.now()): Promise<boolean> {
  const key = keys.fanoutPage(statusId, kind, after);
  if (await putItem({ ...key, state: 'claimed', claimedAt: now, expiresAt: expiresIn(FANOUT_PAGE_TTL_S) }, { ifAbsent: true })) return true;
  const taken = await updateItem(
    {
      Key: key,
      UpdateExpression: 'SET claimedAt = :now',
      ConditionExpression: '#state = :claimed AND claimedAt < :stale',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':now': now, ':claimed': 'claimed', ':stale': now - staleMs },
    },
    fanoutPageItem,
  );
  return taken !== undefined;
}

/** The claimed page was enqueued. A page that ran (and finished) before this is recorded stays `done`. */
export async function markFanoutPageSent(statusId: string, kind: FanoutKind, after: string): Promise<void> {
  await updateItem(
    {
      Key: keys.fanoutPage(statusId, kind, after),
      UpdateExpression: 'SET #state = :sent',
      ConditionExpression: '#state = :claimed',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':sent': 'sent', ':claimed': 'claimed' },
    },
    fanoutPageItem,
  );
}

/** The page wrote all it had to (the first page of a fan-out has no marker until now: its producer enqueued it). */
export async function markFanoutPageDone(statusId: string, kind: FanoutKind, after: string, now = Date.now()): Promise<void> {
  await updateItem(
    {
      Key: keys.fanoutPage(statusId, kind, after),
      UpdateExpression: 'SET #state = :done, claimedAt = if_not_exists(claimedAt, :now), expiresAt = if_not_exists(expiresAt, :exp)',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':done': 'done', ':now': now, ':exp': expiresIn(FANOUT_PAGE_TTL_S) },
    },
    fanoutPageItem,
  );
}

/** Has this page been done by an earlier delivery? (Consistent: a duplicate may arrive right after.) */
export async function fanoutPageDone(statusId: string, kind: FanoutKind, after: string): Promise<boolean> {
  const marker = await getItem(keys.fanoutPage(statusId, kind, after), fanoutPageItem, true);
  return marker?.state === 'done';
}
