// Moderators' review of trends and their admin tags (Mastodon's Admin::Trends and Admin::Tags): approving or
// rejecting a trending status, link, tag or link publisher, and a tag's display name, trendable, usable and
// listable. Each decision is recorded where every trends read finds it (lib/db/trends.ts reviews), and in the
// audit log.
import type { Account } from '../db/accounts';
import { instanceSettings } from '../db/instance';
import { statusById, type Status } from '../db/statuses';
import { pastWeek, tagById, tagHistories, tagIdOf, tagInfo, tagsPage, indexTag, type TagInfo } from '../db/tags';
import {
  publisherById,
  reviewPublisher,
  reviewTrend,
  tagReviews,
  type Publisher,
  type ReviewChanges,
  type TrendReview,
} from '../db/trends';
import { notFound } from '../errors';
import { isId } from '../ids';
import type { Page } from '../paging';
import { historyOf, rankTags, type History } from '../tags/trends';
import { linksForOne, rankedLinkById, type TrendingLink } from '../trends';
import { recordAction } from './audit';

export type Decision = 'approve' | 'reject';
const trendable = (decision: Decision) => decision === 'approve';

/** Approves or rejects a status for trends (Mastodon's status.update(trendable:)); 404 for an unknown id. */
export async function reviewTrendingStatus(moderator: Account, id: string, decision: Decision): Promise<Status> {
  const status = isId(id) ? await statusById(id) : undefined;
  if (!status) throw notFound();
  await reviewTrend('status', status.id, status.id, { trendable: trendable(decision) });
  await recordAction(moderator, decision, { type: 'Status', id: status.id, human: status.uri ?? status.id });
  return status;
}

/** Approves or rejects a link trending now, by its admin id (Mastodon's PreviewCard trendable); 404 when none. */
export async function reviewTrendingLink(moderator: Account, id: string, decision: Decision, now: Date = new Date()): Promise<TrendingLink> {
  const ranked = isId(id) ? await rankedLinkById(id, now) : undefined;
  const link = ranked && (await linksForOne(ranked, now));
  if (!ranked || !link) throw notFound();
  await reviewTrend('link', ranked.hash, ranked.url, { trendable: trendable(decision) });
  await recordAction(moderator, decision, { type: 'PreviewCard', id: ranked.id, human: ranked.url });
  return { ...link, requiresReview: false };
}

/** Approves or rejects a link publisher (all its links without a decision of their own); 404 for an unknown id. */
export async function reviewLinkPublisher(moderator: Account, id: string, decision: Decision): Promise<Publisher> {
  const publisher = isId(id) ? await publisherById(id) : undefined;
  const reviewed = publisher && (await reviewPublisher(publisher, trendable(decision)));
  if (!reviewed) throw notFound();
  await recordAction(moderator, decision, { type: 'PreviewCardProvider', id: reviewed.id, human: reviewed.domain });
  return reviewed;
}

// ---- admin tags ----

/** What Admin::Tag renders: the tag, its week of history, its review and the instance's default. */
export type AdminTagView = { tag: string; name: string; history: History; review: TrendReview | undefined; trendableByDefault: boolean };

async function viewsOf(tags: TagInfo[], now: Date): Promise<AdminTagView[]> {
  const week = pastWeek(now);
  const [byDay, reviews, settings] = await Promise.all([
    tagHistories(tags.map((t) => t.tag), week),
    tagReviews(tags.map((t) => t.tag)),
    instanceSettings(),
  ]);
  return tags.map((t) => ({ tag: t.tag, name: t.name, history: historyOf(t.tag, week, byDay), review: reviews.get(t.tag), trendableByDefault: settings.trendableByDefault }));
}

/** A page of the tags used here, by id (GET /api/v1/admin/tags). */
export async function adminTagsPage(page: Page, now: Date = new Date()): Promise<AdminTagView[]> {
  return viewsOf(await tagsPage(page), now);
}

/**
 * A tag by id: from the id index, else among the tags trending now that were counted before the index
 * existed (which then enter it). 404 when neither knows it.
 */
async function findTag(id: string, now: Date): Promise<TagInfo> {
  if (!isId(id)) throw notFound();
  const indexed = await tagById(id);
  if (indexed) return indexed;
  const trending = (await rankTags(now)).ranked.find((t) => tagIdOf(t.tag) === id);
  const added = trending && ((await tagInfo(trending.tag)) ?? (await indexTag(trending.tag, trending.name)));
  if (!added) throw notFound();
  if (!(await tagById(id))) await indexTag(added.tag, added.name);
  return added;
}

export async function adminTag(id: string, now: Date = new Date()): Promise<AdminTagView> {
  const [view] = await viewsOf([await findTag(id, now)], now);
  if (!view) throw notFound();
  return view;
}

/** PUT /api/v1/admin/tags/:id: what changes, reviewed now (Mastodon sets reviewed_at with any update). */
export async function updateAdminTag(moderator: Account, id: string, changes: ReviewChanges, now: Date = new Date()): Promise<AdminTagView> {
  const tag = await findTag(id, now);
  await reviewTrend('tag', tag.tag, tag.name, changes, now);
  await recordAction(moderator, 'update', { type: 'Tag', id, human: tag.name });
  return adminTag(id, now);
}

/** Approves or rejects a tag for trends (admin trends tags approve / reject). */
export async function reviewTrendingTag(moderator: Account, id: string, decision: Decision, now: Date = new Date()): Promise<AdminTagView> {
  const tag = await findTag(id, now);
  await reviewTrend('tag', tag.tag, tag.name, { trendable: trendable(decision) }, now);
  await recordAction(moderator, decision, { type: 'Tag', id, human: tag.name });
  return adminTag(id, now);
}

/** Every tag trending now with its review (GET /api/v1/admin/trends/tags), best first. */
export async function tagsForReview(limit: number, now: Date = new Date()): Promise<AdminTagView[]> {
  const [{ ranked, week, byDay }, settings] = await Promise.all([rankTags(now), instanceSettings()]);
  return ranked.slice(0, limit).map((t) => ({
    tag: t.tag,
    name: t.name,
    history: historyOf(t.tag, week, byDay),
    review: t.review,
    trendableByDefault: settings.trendableByDefault,
  }));
}
