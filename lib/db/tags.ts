// Hashtag usage counted at write time (by the fan-out worker, off the POST
// path), read by trends, featured tags and their suggestions without scans:
// - `TAGDAY#<day>` / `<tag>`: uses and distinct accounts of a tag on a UTC day
//   (public statuses only, as Mastodon's trends); the day partition is the
//   index of tags used that day, so a week of trends is 7 Queries.
// - `TAGDAYACCT#…`: an account used a tag that day (decides the accounts bump).
// - `ACCOUNT_TAGS#<account>` / `<tag>`: statuses_count and last_status_at of an
//   account's public and unlisted statuses with the tag (featured tags).
// - `ACCOUNT_TAG_DAYS#<account>` / `<day>#<tag>`: the account's uses per day
//   (featured tag suggestions: one Query over a 7-day SK range).
import { z } from 'zod';
import type { Status } from './statuses';
import { config } from '../config';
import { sha256 } from '../crypto';
import type { Page } from '../paging';
import * as gsi1 from './gsi1';
import { queryIdRange } from './id_range';
import * as keys from './keys';
import { query, batchGet, getItem, putItem, queryAll, updateItem } from './table';

export const HISTORY_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Day counters outlive the week they are read for, then expire (TTL attribute `expiresAt`). */
const RETENTION_SECONDS = 14 * 24 * 60 * 60;

/** `YYYY-MM-DD` of a UTC day. */
export const dayOf = (at: Date) => at.toISOString().slice(0, 10);
/** The last `HISTORY_DAYS` UTC days, today first. */
export const pastWeek = (now: Date = new Date()): string[] =>
  Array.from({ length: HISTORY_DAYS }, (_, i) => dayOf(new Date(now.getTime() - i * DAY_MS)));
const expiry = (day: string) => Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + RETENTION_SECONDS;

export const tagDayItem = z.object({
  SK: z.string(),
  name: z.string(),
  uses: z.number().int().default(0),
  accounts: z.number().int().default(0),
  servers: z.number().int().default(0),
});
/** `servers`: distinct servers whose statuses used it that day (counted since the dashboard's tag_servers). */
export type TagDay = { tag: string; name: string; uses: number; accounts: number; servers: number };
const toTagDay = (item: z.infer<typeof tagDayItem>): TagDay => ({ tag: item.SK, name: item.name, uses: item.uses, accounts: item.accounts, servers: item.servers });

/** A status's server: its URI's host, ours for a local status. */
const serverOf = (status: Pick<Status, 'uri'>): string => {
  if (status.uri === null) return config.domain;
  try {
    return new URL(status.uri).host.toLowerCase();
  } catch {
    return status.uri;
  }
};

export const accountTagItem = z.object({
  SK: z.string(),
  name: z.string(),
  statusesCount: z.number().int().default(0),
  lastStatusAt: z.string().nullable().default(null),
});
export type AccountTag = z.infer<typeof accountTagItem>;

const accountTagDayItem = z.object({ SK: z.string(), name: z.string(), uses: z.number().int().default(0) });
const presence = z.object({ PK: z.string() });

/** How far a status's hashtag uses count: nowhere, the author's recent uses, also their featured tags, also trends. */
export type TagUseReach = 'none' | 'author' | 'featured' | 'trending';

/**
 * Counts a new status's tags once (SQS may deliver the fan-out twice: a marker
 * per status decides, so a crash after it under-counts rather than doubles).
 * Reblogs count nothing; how far the others count is `reach`, which lib/policy
 * decides from the status's visibility (tagUseReach). `names`: the spelling of
 * each tag as first written in the status (lib/timelines/fanout_queue.ts tagNamesOf; the
 * stored tags are normalized), kept as the tag's name when it is first used.
 */
export async function recordTagUses(status: Status, reach: TagUseReach, names: Map<string, string>): Promise<boolean> {
  if (status.reblogOfId || status.tags.length === 0 || reach === 'none') return false;
  const day = dayOf(new Date(status.createdAt));
  const first = await putItem({ ...keys.tagUseCounted(status.id), expiresAt: expiry(day) }, { ifAbsent: true });
  if (!first) return false;
  await Promise.all(
    status.tags.map(async (tag) => {
      const name = names.get(tag) ?? tag;
      await updateItem(
        {
          Key: keys.tag(tag),
          // The GSI1 attributes list the tag by id for moderators (GET /api/v1/admin/tags), in the same update.
          UpdateExpression: 'SET #name = if_not_exists(#name, :name), lastUsedAt = :at, GSI1PK = :gpk, GSI1SK = :gsk',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: { ':name': name, ':at': status.createdAt, ':gpk': gsi1.tagById(tagIdOf(tag)).GSI1PK, ':gsk': gsi1.tagById(tagIdOf(tag)).GSI1SK },
        },
        z.unknown(),
      );
      await updateItem(
        {
          Key: keys.accountTagDay(status.accountId, day, tag),
          UpdateExpression: 'ADD uses :one SET #name = if_not_exists(#name, :name), expiresAt = :exp',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: { ':one': 1, ':name': name, ':exp': expiry(day) },
        },
        z.unknown(),
      );
      if (reach === 'author') return;
      await updateItem(
        {
          Key: keys.accountTag(status.accountId, tag),
          UpdateExpression: 'ADD statusesCount :one SET #name = if_not_exists(#name, :name), lastStatusAt = :at',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: { ':one': 1, ':name': name, ':at': status.createdAt },
        },
        z.unknown(),
      );
      if (reach !== 'trending') return;
      // The status's server (ours for a local one): its first use of the tag that day counts one server (tag_servers).
      const [newAccount, newServer] = await Promise.all([
        putItem({ ...keys.tagDayAccount(day, tag, status.accountId), expiresAt: expiry(day) }, { ifAbsent: true }),
        putItem({ ...keys.tagDayServer(day, tag, serverOf(status)), expiresAt: expiry(day) }, { ifAbsent: true }),
      ]);
      await updateItem(
        {
          Key: keys.tagDay(day, tag),
          UpdateExpression: 'ADD uses :one, accounts :acc, servers :srv SET #name = if_not_exists(#name, :name), expiresAt = :exp',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: { ':one': 1, ':acc': newAccount ? 1 : 0, ':srv': newServer ? 1 : 0, ':name': name, ':exp': expiry(day) },
        },
        z.unknown(),
      );
    }),
  );
  return true;
}

/** Every tag used on each day (one Query per day partition), keyed by day then tag. */
export async function tagsUsedOn(days: string[]): Promise<Map<string, Map<string, TagDay>>> {
  const out = new Map<string, Map<string, TagDay>>();
  await Promise.all(
    days.map(async (day) => {
      const items = await queryAll(
        { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.tagDayPartition(day) } },
        tagDayItem,
      );
      out.set(day, new Map(items.map((item) => [item.SK, toTagDay(item)])));
    }),
  );
  return out;
}

/** Day counters of the given tags over the given days (one batch read). */
export async function tagHistories(tags: string[], days: string[]): Promise<Map<string, Map<string, TagDay>>> {
  const found = await batchGet(tags.flatMap((tag) => days.map((day) => keys.tagDay(day, tag))), tagDayItem);
  const out = new Map<string, Map<string, TagDay>>(days.map((day) => [day, new Map()]));
  for (const day of days) {
    for (const tag of tags) {
      const item = found.get(`${keys.tagDay(day, tag).PK}|${tag}`);
      if (item) out.get(day)?.set(tag, toTagDay(item));
    }
  }
  return out;
}

/** The display name of a tag, as first used on this instance. */
export async function tagName(tag: string): Promise<string | undefined> {
  const item = await getItem(keys.tag(tag), z.object({ name: z.string() }));
  return item?.name;
}

export async function accountTags(accountId: string, tags: string[]): Promise<Map<string, AccountTag>> {
  const found = await batchGet(tags.map((tag) => keys.accountTag(accountId, tag)), accountTagItem);
  return new Map([...found.values()].map((item) => [item.SK, item]));
}

/** An account's uses of each tag over the days from `since` (inclusive), most used first. */
export async function accountTagUsesSince(accountId: string, since: string): Promise<{ tag: string; name: string; uses: number }[]> {
  const items = await queryAll(
    {
      KeyConditionExpression: 'PK = :pk AND SK >= :since',
      ExpressionAttributeValues: { ':pk': keys.accountTagDaysPartition(accountId), ':since': since },
    },
    accountTagDayItem,
  );
  const totals = new Map<string, { tag: string; name: string; uses: number }>();
  for (const item of items) {
    const tag = item.SK.slice(item.SK.indexOf('#') + 1);
    const entry = totals.get(tag) ?? { tag, name: item.name, uses: 0 };
    entry.uses += item.uses;
    totals.set(tag, entry);
  }
  return [...totals.values()].sort((a, b) => b.uses - a.uses || a.tag.localeCompare(b.tag));
}

export const tagCounted = async (statusId: string) => (await getItem(keys.tagUseCounted(statusId), presence)) !== undefined;

// ---- tags by id (moderators' list) ----

/**
 * A tag's id. Tags here have no row of their own to number, so the id is derived from the normalised name
 * (the first 63 bits of its SHA-256, in decimal like every Mastodon id): the same tag has the same id in every
 * answer, with no read.
 */
export const tagIdOf = (tag: string): string => (BigInt(`0x${sha256(tag).slice(0, 16)}`) >> 1n).toString();

const tagInfoItem = z.object({ PK: z.string(), name: z.string(), lastUsedAt: z.string().nullable().default(null) });
/** A tag's record: its normalised form, its name as first used here, when it was last used. */
export type TagInfo = { tag: string; name: string; lastUsedAt: string | null };
const toTagInfo = (item: z.infer<typeof tagInfoItem>): TagInfo => ({ tag: item.PK.slice('TAGINFO#'.length), name: item.name, lastUsedAt: item.lastUsedAt });

const byIdTarget = { index: gsi1.INDEX, partitionAttr: 'GSI1PK', sortAttr: 'GSI1SK', partition: gsi1.tagsByIdPartition } as const;

/** A page of the tags used here, by id (GSI1 `TAGIDS`, one Query): GET /api/v1/admin/tags. */
export async function tagsPage(page: Page): Promise<TagInfo[]> {
  return (await queryIdRange(byIdTarget, page, tagInfoItem)).map(toTagInfo);
}

/** A tag by its id (one Query of the id index). */
export async function tagById(id: string): Promise<TagInfo | undefined> {
  const found = await query(
    {
      IndexName: gsi1.INDEX,
      KeyConditionExpression: 'GSI1PK = :p AND GSI1SK = :id',
      ExpressionAttributeValues: { ':p': gsi1.tagsByIdPartition, ':id': gsi1.tagById(id).GSI1SK },
      Limit: 1,
    },
    tagInfoItem,
  );
  const item = found.items[0];
  return item && toTagInfo(item);
}

/** A tag's record by its normalised form. */
export async function tagInfo(tag: string): Promise<TagInfo | undefined> {
  const item = await getItem(keys.tag(tag), tagInfoItem);
  return item && toTagInfo(item);
}

/** Records a tag seen in trends but never recorded with an id (counted before ids were indexed): listed from now on. */
export async function indexTag(tag: string, name: string): Promise<TagInfo | undefined> {
  const item = await updateItem(
    {
      Key: keys.tag(tag),
      UpdateExpression: 'SET #name = if_not_exists(#name, :name), GSI1PK = :gpk, GSI1SK = :gsk',
      ExpressionAttributeNames: { '#name': 'name' },
      ExpressionAttributeValues: { ':name': name, ':gpk': gsi1.tagById(tagIdOf(tag)).GSI1PK, ':gsk': gsi1.tagById(tagIdOf(tag)).GSI1SK },
    },
    tagInfoItem,
  );
  return item && toTagInfo(item);
}
