// Announcements of the operator (GET /api/v1/announcements, managed by `npm run admin -- announcements`):
// one item each in the ANNOUNCEMENTS partition, which holds the instance's few announcements and is read
// whole; each item carries its reaction counts (by emoji name), so listing costs one Query. What one account
// did (dismissed it, reacted with a name) is an item under the announcement's marks partition, looked up by
// exact key when rendering and found there again when the announcement is deleted.
import { z } from 'zod';
import * as keys from './keys';
import type { Key } from './keys';
import { batchGet, batchWrite, deleteItem, getItem, keyString, nowIso, putItem, queryAll, setAttributes, transact, updateItem } from './table';

export const announcementMention = z.object({ id: z.string(), username: z.string(), acct: z.string(), url: z.string() });
export const announcementStatus = z.object({ id: z.string(), url: z.string() });

export const announcementItem = z.object({
  id: z.string(),
  /** What the operator wrote; `contentHtml` is it rendered (escaped, linked) when written. */
  text: z.string(),
  contentHtml: z.string(),
  mentions: z.array(announcementMention).default([]),
  /** Hashtags, normalised as a status's are (lib/text). */
  tags: z.array(z.string()).default([]),
  /** Our public or unlisted statuses the text links to. */
  statuses: z.array(announcementStatus).default([]),
  startsAt: z.string().nullable().default(null),
  endsAt: z.string().nullable().default(null),
  allDay: z.boolean().default(false),
  published: z.boolean(),
  publishedAt: z.string().nullable().default(null),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Accounts that reacted, by emoji name (a unicode emoji or a local custom emoji's shortcode). */
  reactionCounts: z.record(z.number()).default({}),
  /** When each name was first used: reactions are listed in that order, as Mastodon lists them. */
  reactionSince: z.record(z.string()).default({}),
});
export type Announcement = z.infer<typeof announcementItem>;

/** What the operator sets; the rest is derived (contentHtml, mentions, tags, statuses) or kept by the server. */
export type AnnouncementFields = Pick<Announcement, 'text' | 'contentHtml' | 'mentions' | 'tags' | 'statuses' | 'startsAt' | 'endsAt' | 'allDay'>;

/** Mastodon's ReactionValidator: at most 8 different emoji on one announcement. */
export const MAX_REACTION_NAMES = 8;

const recordOf = (a: Announcement) => ({ ...keys.announcement(a.id), ...a });

export async function putAnnouncement(a: Announcement): Promise<void> {
  await putItem(recordOf(a), { ifAbsent: true });
}

export const announcementById = (id: string, consistent = false) => getItem(keys.announcement(id), announcementItem, consistent);

/** Every announcement, published or not, oldest first (by id). */
export const allAnnouncements = () =>
  queryAll({ KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.announcementsPartition() } }, announcementItem);

/** Changes what the operator sets (and publication); undefined when the announcement is gone. */
export async function updateAnnouncement(
  id: string,
  changes: Partial<AnnouncementFields & Pick<Announcement, 'published' | 'publishedAt'>>,
): Promise<Announcement | undefined> {
  const set = setAttributes({ ...changes, updatedAt: nowIso() });
  if (!set) return announcementById(id, true);
  return updateItem({ Key: keys.announcement(id), ...set, ConditionExpression: 'attribute_exists(PK)' }, announcementItem);
}

/** Removes an announcement and every dismissal and reaction made to it; undefined when it was not there. */
export async function deleteAnnouncement(id: string): Promise<Announcement | undefined> {
  const removed = await deleteItem(keys.announcement(id), announcementItem, { ConditionExpression: 'attribute_exists(PK)' });
  if (!removed) return undefined;
  const marks = await queryAll(
    { KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': keys.announcementMarksPartition(id) }, ProjectionExpression: 'PK, SK' },
    z.object({ PK: z.string(), SK: z.string() }),
  );
  await batchWrite([], marks);
  return removed;
}

/** What one account did to some announcements: those it dismissed, and the names it reacted with to each. */
export type AnnouncementMarks = { read: Set<string>; reacted: Map<string, Set<string>> };

/**
 * One account's dismissals and reactions, by exact key: the dismissal of each announcement and a reaction of
 * each name the announcement has been reacted with (its counts name them). One BatchGet for a page of them.
 */
export async function announcementMarksOf(accountId: string, announcements: Announcement[]): Promise<AnnouncementMarks> {
  const wanted: { key: Key; announcementId: string; name: string | null }[] = announcements.flatMap((a) => [
    { key: keys.announcementRead(a.id, accountId), announcementId: a.id, name: null },
    ...Object.keys(a.reactionCounts).map((name) => ({ key: keys.announcementReaction(a.id, accountId, name), announcementId: a.id, name })),
  ]);
  const found = wanted.length === 0 ? new Map() : await batchGet(wanted.map((w) => w.key), z.object({ PK: z.string() }), 'PK, SK');
  const marks: AnnouncementMarks = { read: new Set(), reacted: new Map() };
  for (const w of wanted) {
    if (!found.has(keyString(w.key))) continue;
    if (w.name === null) marks.read.add(w.announcementId);
    else marks.reacted.set(w.announcementId, (marks.reacted.get(w.announcementId) ?? new Set()).add(w.name));
  }
  return marks;
}

/** Only a published announcement may be dismissed or reacted to. */
const whilePublished = (announcementId: string) => ({
  Key: keys.announcement(announcementId),
  ConditionExpression: '#published = :yes',
  ExpressionAttributeNames: { '#published': 'published' },
  ExpressionAttributeValues: { ':yes': true },
});

export type AnnouncementMarkFailure = 'announcement-gone';

/** Marks an announcement read by an account; marking it again changes nothing. */
export async function dismissAnnouncement(announcementId: string, accountId: string): Promise<{ ok: true } | { failed: AnnouncementMarkFailure }> {
  const result = await transact([
    { ConditionCheck: whilePublished(announcementId) },
    { Put: { Item: { ...keys.announcementRead(announcementId, accountId), announcementId, accountId, createdAt: nowIso() } } },
  ]);
  return result.ok ? { ok: true } : { failed: 'announcement-gone' };
}

export type ReactionFailure = AnnouncementMarkFailure | 'reaction-limit';

/**
 * Adds an account's reaction: the reaction item (once per account and name) and the name's count move in one
 * transaction, so a count is exactly the number of accounts. Reacting again with the same name is a success
 * that counts nothing. A new name is refused once the announcement has MAX_REACTION_NAMES names.
 */
export async function addAnnouncementReaction(
  announcementId: string,
  accountId: string,
  name: string,
): Promise<{ ok: true; added: boolean } | { failed: ReactionFailure }> {
  const now = nowIso();
  const result = await transact([
    {
      Put: {
        Item: { ...keys.announcementReaction(announcementId, accountId, name), announcementId, accountId, name, createdAt: now },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      Update: {
        Key: keys.announcement(announcementId),
        UpdateExpression: 'SET reactionCounts.#n = if_not_exists(reactionCounts.#n, :zero) + :one, reactionSince.#n = if_not_exists(reactionSince.#n, :now)',
        ConditionExpression: '#published = :yes AND (attribute_exists(reactionCounts.#n) OR size(reactionCounts) < :limit)',
        ExpressionAttributeNames: { '#n': name, '#published': 'published' },
        ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':now': now, ':yes': true, ':limit': MAX_REACTION_NAMES },
      },
    },
  ]);
  if (result.ok) return { ok: true, added: true };
  const current = await announcementById(announcementId, true);
  if (!current?.published) return { failed: 'announcement-gone' };
  if (result.failed.includes(0)) return { ok: true, added: false };
  return { failed: 'reaction-limit' };
}

export type ReactionRemovalFailure = AnnouncementMarkFailure | 'reaction-not-found';

/**
 * Removes an account's reaction and counts it out, in one transaction; a name no account uses any more
 * leaves the announcement (a conditional update, so a reaction added meanwhile keeps it).
 */
export async function removeAnnouncementReaction(
  announcementId: string,
  accountId: string,
  name: string,
): Promise<{ ok: true } | { failed: ReactionRemovalFailure }> {
  const result = await transact([
    { Delete: { Key: keys.announcementReaction(announcementId, accountId, name), ConditionExpression: 'attribute_exists(PK)' } },
    {
      Update: {
        Key: keys.announcement(announcementId),
        UpdateExpression: 'SET reactionCounts.#n = reactionCounts.#n - :one',
        ConditionExpression: '#published = :yes AND attribute_exists(reactionCounts.#n)',
        ExpressionAttributeNames: { '#n': name, '#published': 'published' },
        ExpressionAttributeValues: { ':one': 1, ':yes': true },
      },
    },
  ]);
  if (!result.ok) return result.failed.includes(1) && !(await announcementById(announcementId, true))?.published ? { failed: 'announcement-gone' } : { failed: 'reaction-not-found' };
  await updateItem(
    {
      Key: keys.announcement(announcementId),
      UpdateExpression: 'REMOVE reactionCounts.#n, reactionSince.#n',
      ConditionExpression: 'reactionCounts.#n <= :zero',
      ExpressionAttributeNames: { '#n': name },
      ExpressionAttributeValues: { ':zero': 0 },
    },
    announcementItem,
  );
  return { ok: true };
}
