// GET /api/v1/accounts/:id/statuses: the author's statuses and reblogs, newest
// first, with Mastodon's filters, thinned to what the viewer may see.
import { z } from 'zod';
import { visibleAccountById } from '../policy/accounts';
import type { Account } from '../db/accounts';
import { accountStatusesPage, pinnedStatusIds, type AccountStatusFilters } from '../db/account_statuses';
import { statusesByIds, type Status } from '../db/statuses';
import { pageQuery } from '../paging';
import { booleanish, text } from '../schema';
import { blockedBetween, goneFor, visibleTo } from '../policy';
import type { TimelinePage } from '../db/timelines';
import { normalizeTag } from '../text/tags';

export const accountStatusesQuery = pageQuery(20, 40).extend({
  id: z.string(),
  only_media: booleanish.default(false),
  exclude_replies: booleanish.default(false),
  exclude_reblogs: booleanish.default(false),
  /** Mastodon 4.6: leave out the author's private mentions (which only the author and those mentioned see anyway). */
  exclude_direct: booleanish.default(false),
  pinned: booleanish.default(false),
  tagged: text(200).optional().transform((t) => (t === undefined ? undefined : normalizeTag(t.replace(/^#/, '')))),
});
export type AccountStatusesQuery = z.infer<typeof accountStatusesQuery>;

/** The filters as a predicate, for pinned statuses (read by id rather than through the index). */
const passes = (filters: AccountStatusFilters) => (s: Status): boolean =>
  (!filters.onlyMedia || s.mediaIds.length > 0) &&
  (!filters.excludeReblogs || s.reblogOfId === null) &&
  (!filters.excludeReplies || s.inReplyToId === null || s.inReplyToAccountId === s.accountId) &&
  (filters.tagged === undefined || s.tags.includes(filters.tagged));

export async function accountStatuses(accountId: string, viewer: Account | undefined, input: AccountStatusesQuery): Promise<TimelinePage> {
  const account = await visibleAccountById(accountId);
  // A suspended account's statuses are gone for all but itself (Mastodon's Accounts::StatusesController answers []).
  if (goneFor(account, viewer?.id)) return { statuses: [] };
  // A block either way hides the author's statuses from the viewer entirely.
  if (viewer && viewer.id !== account.id && (await blockedBetween(viewer.id, account.id))) return { statuses: [] };
  const page = { max_id: input.max_id, since_id: input.since_id, min_id: input.min_id, limit: input.limit };
  const filters: AccountStatusFilters = {
    onlyMedia: input.only_media,
    excludeReplies: input.exclude_replies,
    excludeReblogs: input.exclude_reblogs,
    tagged: input.tagged === '' ? undefined : input.tagged,
  };
  const shown = (items: Status[]) => visibleTo(viewer, input.exclude_direct ? items.filter((s) => s.visibility !== 'direct') : items, 'account');
  let statuses: Status[];
  if (input.pinned) {
    const ids = await pinnedStatusIds(account.id, page);
    const byId = await statusesByIds(ids);
    const pinned = ids.flatMap((id) => byId.get(id) ?? []).filter((s) => s.accountId === account.id).filter(passes(filters));
    statuses = await shown(pinned);
  } else {
    statuses = await accountStatusesPage(account.id, page, filters, shown);
  }
  return { statuses, newest: statuses[0]?.id, oldest: statuses.at(-1)?.id };
}
