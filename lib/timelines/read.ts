// Reading the home, public and hashtag timelines: which partitions, which
// filters, and the page of statuses to render. Each page is one Query per
// partition (more only when filters thin it out), one batch read of the
// statuses, the visibility check and one rendering batch.
import { z } from 'zod';
import type { Account } from '../db/accounts';
import { recentInstanceSettings } from '../db/instance';
import { statusesByIds, type Status } from '../db/statuses';
import { collectPage, homeTimelinePage, publicTimelineEntries, tagTimelineEntries, type PublicScope, type TimelineEntry, type TimelinePage } from '../db/timelines';

export type { TimelinePage };
import { requiresAuth } from '../errors';
import { pageQuery, type IdRange } from '../paging';
import { booleanish, oneOrMany } from '../schema';
import { visibleTo } from '../policy';

export const timelineQuery = pageQuery(20, 40);

export const homeQuery = timelineQuery.extend({ local: booleanish.default(false) });
export type HomeQuery = z.infer<typeof homeQuery>;

export const publicQuery = timelineQuery.extend({
  local: booleanish.default(false),
  remote: booleanish.default(false),
  only_media: booleanish.default(false),
});
export type PublicQuery = z.infer<typeof publicQuery>;

/** Mastodon reads at most four tags per `any`/`all`/`none`. */
export const TAGS_PER_MODE = 4;
const TAG_MAX = 200;

/** Hashtag names as stored: without `#`, NFKC-normalised, lower-cased. */
export const normalizeTag = (name: string) => name.replace(/^#/, '').normalize('NFKC').toLowerCase();

const tagName = z.string({ invalid_type_error: 'must be a string' }).max(TAG_MAX, `is too long (maximum is ${TAG_MAX} characters)`);
const tagList = oneOrMany(z.array(tagName, { invalid_type_error: 'must be a list of tags' }))
  .optional()
  .transform((names) => [...new Set((names ?? []).map(normalizeTag).filter((n) => n !== ''))].slice(0, TAGS_PER_MODE));

export const tagQuery = publicQuery.extend({
  hashtag: tagName.min(1, "can't be blank").transform(normalizeTag),
  any: tagList,
  all: tagList,
  none: tagList,
});
export type TagQuery = z.infer<typeof tagQuery>;

/** Statuses in page order (newest first), read in one batch; deleted ones drop out. */
async function statusesOf(entries: TimelineEntry[]): Promise<Status[]> {
  const byId = await statusesByIds(entries.map((e) => e.statusId));
  return entries.flatMap((e) => byId.get(e.statusId) ?? []);
}

/** What a timeline answers: the statuses to render and the ids the Link header pages from. */

const pageOf = (statuses: Status[], ids: string[]): TimelinePage => ({ statuses, newest: ids[0], oldest: ids.at(-1) });

const inPageOrder = <T>(items: T[], range: IdRange) => (range.min_id !== undefined ? items.reverse() : items);

export async function homeTimeline(viewer: Account, input: HomeQuery): Promise<TimelinePage> {
  const entries = await homeTimelinePage(viewer.id, input, input.limit, (e) => !input.local || e.local);
  // Blocks, mutes and filters also apply on read: entries written before the block or filter stay hidden.
  const statuses = await visibleTo(viewer, await statusesOf(entries), 'home');
  // Paging follows the entries read, so entries whose status is gone never stall it.
  return pageOf(statuses, entries.map((e) => e.statusId));
}

/** Public and hashtag timelines need a token when the instance turned public preview off. */
export async function assertPublicPreview(viewer: Account | undefined, hasToken: boolean): Promise<void> {
  if (hasToken || viewer) return;
  const settings = await recentInstanceSettings();
  if (!settings.publicPreview) throw requiresAuth();
}

/** Whose statuses a public or hashtag timeline shows: as Mastodon, `local` and `remote` together mean both. */
function scopeOf(input: { local: boolean; remote: boolean }): PublicScope {
  if (input.local && !input.remote) return 'local';
  if (input.remote && !input.local) return 'remote';
  return 'all';
}

const entryFilter = (input: { only_media: boolean; local: boolean; remote: boolean }) => {
  const scope = scopeOf(input);
  return (e: TimelineEntry) => (!input.only_media || e.hasMedia) && (scope === 'all' || e.local === (scope === 'local'));
};

export async function publicTimeline(input: PublicQuery, viewer?: Account): Promise<TimelinePage> {
  const source = publicTimelineEntries(scopeOf(input), input);
  const keep = entryFilter(input);
  const entries = inPageOrder(await collectPage(source, input.limit, (batch) => batch.filter(keep)), input);
  return pageOf(await visibleTo(viewer, await statusesOf(entries), 'public'), entries.map((e) => e.statusId));
}

/**
 * A hashtag timeline as Mastodon's TagFeed: statuses tagged with the tag or any
 * of `any[]`, having every tag of `all[]`, and none of `none[]`.
 */
export async function tagTimeline(input: TagQuery, viewer?: Account): Promise<TimelinePage> {
  const tags = [input.hashtag, ...input.any];
  const source = tagTimelineEntries(tags, input);
  const keep = entryFilter(input);
  const needsStatusTags = input.all.length > 0 || input.none.length > 0;
  const passes = (s: Status) => input.all.every((t) => s.tags.includes(t)) && !input.none.some((t) => s.tags.includes(t));
  const statuses = inPageOrder(
    await collectPage(source, input.limit, async (batch) => {
      const kept = await visibleTo(viewer, await statusesOf(batch.filter(keep)), 'public');
      return needsStatusTags ? kept.filter(passes) : kept;
    }),
    input,
  );
  return pageOf(statuses, statuses.map((s) => s.id));
}
