// Trends review (Mastodon's admin/trends): the tags, statuses and links trending now, reviewed or not, each with
// its state and approve / reject buttons; the links page also lists the link publishers. Decisions go through
// lib/moderation/trends.ts (the admin API's own: the review every trends read finds, the audit log).
import { z } from 'zod';
import { accountsByIds } from '../db/accounts';
import { tagIdOf } from '../db/tags';
import { publishersPage } from '../db/trends';
import type { Reply } from '../http/reply';
import { reviewLinkPublisher, reviewTrendingLink, reviewTrendingStatus, reviewTrendingTag, tagsForReview, type Decision } from '../moderation/trends';
import { linksForReview, statusesForReview } from '../trends';
import { asPage, canonicalId } from './common';
import { adminPage, adminPath, csrfField, esc, messagePage, noticeOf, seeOther, when, type Viewer } from './layout';
import { statusBlock } from './parts';

/** Trending items listed per page (the admin API's largest page of each). */
export const TRENDS_LISTED = { tags: 20, statuses: 40, links: 20 } as const;
/** Link publishers listed. */
export const PUBLISHERS_LISTED = 100;

const NOTICES: Record<string, string> = { approve: 'Approved: it may trend publicly.', reject: 'Rejected: it no longer trends publicly.' };

const NAV = `<p><a href="${esc(adminPath('/trends/tags'))}">Tags</a> · <a href="${esc(adminPath('/trends/statuses'))}">Statuses</a> · <a href="${esc(adminPath('/trends/links'))}">Links and publishers</a></p>`;

/** The approve / reject buttons of one item. */
const reviewButtons = (viewer: Viewer, action: string, id: string, kind?: string) => `<form method="post" action="${esc(action)}" class="inline">
${csrfField(viewer.csrf)}
<input type="hidden" name="id" value="${esc(id)}">
${kind ? `<input type="hidden" name="kind" value="${esc(kind)}">` : ''}
<button type="submit" name="decision" value="approve" class="primary">Approve</button>
<button type="submit" name="decision" value="reject" class="danger">Reject</button>
</form>`;

const stateOf = (requiresReview: boolean, trendable?: boolean | null) =>
  requiresReview ? '<span class="badge">Awaits review</span>' : trendable === false ? '<span class="badge bad">Rejected</span>' : trendable === true ? '<span class="badge">Approved</span>' : '<span class="badge">Reviewed</span>';

const table = (id: string, head: string[], rows: string, empty: string, count: number) =>
  count === 0
    ? `<p id="empty">${esc(empty)}</p>`
    : `<table id="${esc(id)}">
<thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}<th></th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`;

/** GET /admin/trends/tags */
export async function trendingTagsPage(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const tags = await tagsForReview(TRENDS_LISTED.tags);
  const action = adminPath('/trends/tags');
  const rows = tags
    .map((t) => {
      const id = tagIdOf(t.tag);
      const uses = t.history.reduce((sum, d) => sum + Number(d.uses), 0);
      const accounts = t.history.reduce((sum, d) => sum + Number(d.accounts), 0);
      return `<tr id="trend-tag-${esc(id)}">
<td>#${esc(t.review?.displayName ?? t.name)}</td>
<td>${uses}</td>
<td>${accounts}</td>
<td>${stateOf((t.review?.reviewedAt ?? null) === null, t.review?.trendable ?? null)}</td>
<td>${reviewButtons(viewer, action, id)}</td>
</tr>`;
    })
    .join('\n');
  const body = `${noticeOf(NOTICES, input)}
${NAV}
${table('trend-tags', ['Tag', 'Uses (7 days)', 'Accounts (7 days)', 'Review'], rows, 'No tag is trending.', tags.length)}`;
  return adminPage(viewer, 'Trending tags', body);
}

/** GET /admin/trends/statuses */
export async function trendingStatusesPage(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const { statuses } = await statusesForReview({ offset: 0, limit: TRENDS_LISTED.statuses });
  const authors = await accountsByIds([...new Set(statuses.map((s) => s.status.accountId))]);
  const action = adminPath('/trends/statuses');
  const items = statuses
    .map(({ status, requiresReview }) => `<div class="trend" id="trend-status-${esc(status.id)}">
${statusBlock(status, authors.get(status.accountId))}
<p>${stateOf(requiresReview)}</p>
${reviewButtons(viewer, action, status.id)}
</div>`)
    .join('\n');
  const body = `${noticeOf(NOTICES, input)}
${NAV}
${statuses.length === 0 ? '<p id="empty">No status is trending.</p>' : items}`;
  return adminPage(viewer, 'Trending statuses', body);
}

/** GET /admin/trends/links: the links trending now, and the publishers (the links' hosts). */
export async function trendingLinksPage(viewer: Viewer, input: Record<string, unknown>): Promise<Reply> {
  const [{ links }, publishers] = await Promise.all([linksForReview({ offset: 0, limit: TRENDS_LISTED.links }), publishersPage({ limit: PUBLISHERS_LISTED })]);
  const action = adminPath('/trends/links');
  const linkRows = links
    .map((l) => {
      const uses = l.history.reduce((sum, d) => sum + Number(d.uses), 0);
      return `<tr id="trend-link-${esc(l.id)}">
<td>${/^https?:\/\//i.test(l.card.url) ? `<a href="${esc(l.card.url)}" rel="noopener noreferrer nofollow">${esc(l.card.title || l.card.url)}</a>` : esc(l.card.title)}<br><span class="muted">${esc(l.card.url)}</span></td>
<td>${esc(l.card.providerName)}</td>
<td>${uses}</td>
<td>${stateOf(l.requiresReview)}</td>
<td>${reviewButtons(viewer, action, l.id, 'link')}</td>
</tr>`;
    })
    .join('\n');
  const publisherRows = publishers
    .map((p) => `<tr id="trend-publisher-${esc(p.id)}">
<td>${esc(p.domain)}</td>
<td>${p.requestedReviewAt ? when(p.requestedReviewAt) : ''}</td>
<td>${stateOf(p.reviewedAt === null, p.trendable)}</td>
<td>${reviewButtons(viewer, action, p.id, 'publisher')}</td>
</tr>`)
    .join('\n');
  const body = `${noticeOf(NOTICES, input)}
${NAV}
${table('trend-links', ['Link', 'Provider', 'Shares (7 days)', 'Review'], linkRows, 'No link is trending.', links.length)}
<h2>Publishers</h2>
<p class="muted">Approving or rejecting a publisher decides for every link of its domain that has no decision of its own.</p>
${table('trend-publishers', ['Domain', 'First seen', 'Review'], publisherRows, 'No publisher yet.', publishers.length)}`;
  return adminPage(viewer, 'Trending links', body);
}

const submitted = z.object({ id: z.string().max(30), decision: z.enum(['approve', 'reject']), kind: z.enum(['link', 'publisher']).optional() });

type Kind = 'tags' | 'statuses' | 'links';

/** POST /admin/trends/{tags,statuses,links}: approve or reject one item (on links, a link or a publisher). */
export const submitTrend = (kind: Kind) =>
  async (viewer: Viewer, input: Record<string, unknown>): Promise<Reply> => {
    const back = adminPath(`/trends/${kind}`);
    const form = submitted.safeParse(input);
    const id = form.success ? canonicalId(form.data.id) : undefined;
    if (!form.success || !id) return messagePage(viewer, 422, 'Not done', 'Choose an item and approve or reject it.', back);
    const decision: Decision = form.data.decision;
    return asPage(viewer, back, async () => {
      if (kind === 'tags') await reviewTrendingTag(viewer.account, id, decision);
      else if (kind === 'statuses') await reviewTrendingStatus(viewer.account, id, decision);
      else if (form.data.kind === 'publisher') await reviewLinkPublisher(viewer.account, id, decision);
      else await reviewTrendingLink(viewer.account, id, decision);
      return seeOther(back, decision);
    });
  };
