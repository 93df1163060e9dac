// What moderators see of trends (https://docs.joinmastodon.org/methods/admin/trends/): the public entities plus
// their review. Trends::Link with `id` and `requires_review` (REST::Admin::Trends::LinkSerializer), Status with
// `requires_review`, Admin::Tag (https://docs.joinmastodon.org/entities/Tag/#admin) and a link publisher
// (REST::Admin::Trends::Links::PreviewCardProviderSerializer).
import type { Account } from '../db/accounts';
import type { Status } from '../db/statuses';
import type { Publisher, TrendReview } from '../db/trends';
import type { TrendingLink } from '../trends';
import { renderStatuses } from './status';
import { renderTag, type History } from './tag';
import { renderTrendingLink } from './trends';

export const renderAdminTrendLink = (link: TrendingLink): Record<string, unknown> => ({
  ...renderTrendingLink(link),
  id: link.id,
  requires_review: link.requiresReview,
});

export async function renderAdminTrendStatuses(items: { status: Status; requiresReview: boolean }[], viewer: Account): Promise<Record<string, unknown>[]> {
  const rendered = await renderStatuses(items.map((i) => i.status), viewer, { context: 'public' });
  const review = new Map(items.map((i) => [i.status.id, i.requiresReview]));
  return rendered.map((s) => ({ ...s, requires_review: review.get(String(s.id)) ?? true }));
}

/**
 * Admin::Tag: `trendable` is the decision, else the instance's trendable_by_default (Mastodon's Tag#trendable);
 * `requires_review` until a moderator reviewed it (approve, reject or an update).
 */
export function renderAdminTag(t: { tag: string; name: string }, history: History, review: TrendReview | undefined, trendableByDefault: boolean) {
  return {
    ...renderTag({ tag: t.tag, name: review?.displayName ?? t.name }, history),
    trendable: review?.trendable ?? trendableByDefault,
    usable: review?.usable ?? true,
    requires_review: (review?.reviewedAt ?? null) === null,
    listable: review?.listable ?? true,
  };
}

export const renderPublisher = (p: Publisher) => ({
  id: p.id,
  domain: p.domain,
  // Mastodon's column defaults to false: a publisher trends only once approved.
  trendable: p.trendable ?? false,
  reviewed_at: p.reviewedAt,
  requested_review_at: p.requestedReviewAt,
  requires_review: p.reviewedAt === null,
});

/** An Admin::Tag from what lib/moderation/trends.ts gathered. */
export const renderAdminTagView = (v: { tag: string; name: string; history: History; review: TrendReview | undefined; trendableByDefault: boolean }) =>
  renderAdminTag(v, v.history, v.review, v.trendableByDefault);
