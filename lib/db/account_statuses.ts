// An account's own statuses and reblogs (GSI1 on the status item, newest first)
// and its pinned statuses (a list partition keyed by status id).
import { z } from 'zod';
import type { Page } from '../paging';
import { queryIdRange, type RangeFilter } from './id_range';
import * as keys from './keys';
import * as gsi1 from './gsi1';
import { statusItem, type Status } from './statuses';

export type AccountStatusFilters = {
  onlyMedia?: boolean;
  excludeReplies?: boolean;
  excludeReblogs?: boolean;
  /** A hashtag, lower-cased and NFKC-normalised as stored on statuses. */
  tagged?: string;
};

/** The filters as one FilterExpression on the status attributes; undefined when none applies. */
function filterOf(filters: AccountStatusFilters): RangeFilter | undefined {
  const parts: string[] = [];
  const values: Record<string, unknown> = {};
  const isNull = (attr: string) => `(attribute_not_exists(${attr}) OR attribute_type(${attr}, :nullType))`;
  if (filters.onlyMedia) {
    parts.push('size(mediaIds) > :zero');
    values[':zero'] = 0;
  }
  if (filters.excludeReblogs) {
    parts.push(isNull('reblogOfId'));
    values[':nullType'] = 'NULL';
  }
  if (filters.excludeReplies) {
    // Mastodon keeps self-replies (threads) when replies are excluded.
    parts.push(`(${isNull('inReplyToId')} OR inReplyToAccountId = accountId)`);
    values[':nullType'] = 'NULL';
  }
  if (filters.tagged !== undefined) {
    parts.push('contains(tags, :tag)');
    values[':tag'] = filters.tagged;
  }
  return parts.length > 0 ? { expression: parts.join(' AND '), values } : undefined;
}

/** A page of the account's statuses and reblogs, newest first; `accept` drops what the viewer may not see. */
export const accountStatusesPage = (
  accountId: string,
  page: Page,
  filters: AccountStatusFilters,
  accept?: (statuses: Status[]) => Promise<Status[]>,
): Promise<Status[]> =>
  queryIdRange(
    { index: gsi1.INDEX, partitionAttr: 'GSI1PK', sortAttr: 'GSI1SK', partition: gsi1.accountStatusesPartition(accountId) },
    page,
    statusItem,
    { filter: filterOf(filters), accept },
  );

/** The list entry written by pinning (lib/db/interactions.ts addPin). */
const pinEntry = z.object({ statusId: z.string() });

/** Ids of the account's pinned statuses in one page, newest status first. */
export async function pinnedStatusIds(accountId: string, page: Page): Promise<string[]> {
  const items = await queryIdRange({ partitionAttr: 'PK', sortAttr: 'SK', partition: keys.accountPinsPartition(accountId) }, page, pinEntry);
  return items.map((item) => item.statusId);
}
